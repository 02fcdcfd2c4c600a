/* A player that turns direction codes into grid steps with its dir.h, as many course players
 * do: it takes its queen with the largest column, and slides it east, else west, else the other
 * ways, one arithmetic step at a time while the matrix says "there is a neighbour with this
 * code here" and the next vertex is free; then it shoots back to where the queen came from.
 * With the dir.h the graph was built for, every move is legal; with the other one, east and
 * west are swapped and the walk leaves its row (an illegal move). */
#include "board.h"
#include "dir.h"

static struct board board;

char const *get_player_name(void) { return "walker test player"; }

void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]) {
  board_init(&board, player_id, graph, num_queens, queens);
}

static long delta(unsigned int code) {
  long m = board.m;
  switch (code) {
  case DIR_NORTH: return -m;
  case DIR_NE: return -m + 1;
  case DIR_EAST: return 1;
  case DIR_SE: return m + 1;
  case DIR_SOUTH: return m;
  case DIR_SW: return m - 1;
  case DIR_WEST: return -1;
  case DIR_NW: return -m - 1;
  default: return 0;
  }
}

static int has_code(unsigned int v, unsigned int code) { return step(&board, v, code) >= 0; }

struct move_t play(struct move_t previous_move) {
  static const unsigned int order[8] = {DIR_EAST, DIR_WEST, DIR_NORTH, DIR_SOUTH,
                                        DIR_NE, DIR_NW, DIR_SE, DIR_SW};
  if (previous_move.queen_src != UINT_MAX) board_apply(&board, 1 - board.me, previous_move);
  unsigned int *mine = board.queens[board.me];
  char *tried = calloc(board.nq, 1);
  struct move_t mv = {UINT_MAX, UINT_MAX, UINT_MAX};
  for (unsigned int round = 0; round < board.nq && mv.queen_src == UINT_MAX; round++) {
    unsigned int best = 0;
    int found = 0;
    for (unsigned int i = 0; i < board.nq; i++)
      if (!tried[i] && (!found || mine[i] % board.m > mine[best] % board.m)) best = i, found = 1;
    tried[best] = 1;
    unsigned int q = mine[best];
    for (int d = 0; d < 8 && mv.queen_src == UINT_MAX; d++) {
      long cur = q;
      for (;;) {
        long next = cur + delta(order[d]);
        if (!has_code((unsigned int)cur, order[d]) || next < 0 || next >= (long)board.n ||
            board.blocked[next])
          break;
        cur = next;
      }
      if (cur != (long)q) mv = (struct move_t){q, (unsigned int)cur, q};
    }
  }
  free(tried);
  if (mv.queen_src != UINT_MAX) board_apply(&board, board.me, mv);
  return mv; /* UINT_MAX everywhere when it found nothing: an illegal move */
}

void finalize(void) { board_free(&board); }
