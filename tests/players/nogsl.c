/* A random player built without -lgsl (its gsl_spmatrix_uint_free and gsl_spmatrix_uint_get
 * come from whoever loaded GSL globally) and with an unresolved symbol it never calls, which
 * only lazy binding accepts. */
#include "board.h"

static struct board board;

extern void course_server_only_hook(void);
void never_called(void) { course_server_only_hook(); }

char const *get_player_name(void) { return "no-gsl test player"; }

void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]) {
  board_init(&board, player_id, graph, num_queens, queens);
  /* One call through GSL's function table, not the struct layout. */
  if (graph->num_vertices > 1 && gsl_spmatrix_uint_get(graph->t, 0, 1) == 0 && has_edges(&board, 0) &&
      has_edges(&board, 1))
    fprintf(stderr, "nogsl: vertices 0 and 1 should be neighbours\n");
}

struct move_t play(struct move_t previous_move) {
  if (previous_move.queen_src != UINT_MAX) board_apply(&board, 1 - board.me, previous_move);
  struct move_t mv = random_move(&board);
  board_apply(&board, board.me, mv);
  return mv;
}

void finalize(void) { board_free(&board); }
