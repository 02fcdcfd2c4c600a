/* A random player with global state that finalize frees without resetting, as many course
 * players do: a second game in the same process would run on freed memory. Here it aborts
 * instead, so that a reused process shows as a crash. */
#include "board.h"

static struct board board;
static unsigned int *history = NULL;
static unsigned int plies = 0;

char const *get_player_name(void) { return "stateful test player"; }

void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]) {
  if (history != NULL) {
    fprintf(stderr, "stateful: a second game in one process, on the freed state\n");
    abort();
  }
  history = calloc(graph->num_vertices, sizeof *history);
  board_init(&board, player_id, graph, num_queens, queens);
}

struct move_t play(struct move_t previous_move) {
  if (previous_move.queen_src != UINT_MAX) board_apply(&board, 1 - board.me, previous_move);
  struct move_t mv = random_move(&board);
  board_apply(&board, board.me, mv);
  history[plies++ % board.n] = mv.arrow_dst;
  return mv;
}

void finalize(void) {
  free(history); /* not reset to NULL */
  board_free(&board);
}
