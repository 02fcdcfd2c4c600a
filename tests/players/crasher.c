/* A random player that segfaults on its third move. */
#include "board.h"

static struct board board;
static int moves = 0;

char const *get_player_name(void) { return "crasher test player"; }

void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]) {
  board_init(&board, player_id, graph, num_queens, queens);
}

struct move_t play(struct move_t previous_move) {
  if (++moves == 3) *(volatile int *)0 = 1;
  if (previous_move.queen_src != UINT_MAX) board_apply(&board, 1 - board.me, previous_move);
  struct move_t mv = random_move(&board);
  board_apply(&board, board.me, mv);
  return mv;
}

void finalize(void) { board_free(&board); }
