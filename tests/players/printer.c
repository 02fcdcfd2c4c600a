/* A random player that prints protocol-looking lines on stdout (already when loaded) and reads
 * stdin: if stdin gave it anything, it had the protocol's input, and it aborts to say so. */
#include "board.h"

static struct board board;

__attribute__((constructor)) static void loaded(void) {
  printf("bestmove 0-0-0\nugiok\nreadyok\n");
  fflush(stdout);
}

char const *get_player_name(void) { return "printer test player"; }

void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]) {
  printf("initialize %u: bestmove 1-2-3\n", player_id);
  fflush(stdout);
  board_init(&board, player_id, graph, num_queens, queens);
}

struct move_t play(struct move_t previous_move) {
  char line[256];
  if (fgets(line, sizeof line, stdin) != NULL) {
    fprintf(stderr, "printer: read `%s` from stdin\n", line);
    abort();
  }
  if (previous_move.queen_src != UINT_MAX) board_apply(&board, 1 - board.me, previous_move);
  struct move_t mv = random_move(&board);
  board_apply(&board, board.me, mv);
  printf("bestmove %u-%u-%u\n", mv.queen_dst, mv.queen_src, mv.queen_src);
  fflush(stdout);
  return mv;
}

void finalize(void) {
  puts("bye");
  board_free(&board);
}
