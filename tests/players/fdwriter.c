/* A random player that writes protocol-looking lines to every file descriptor from 3 to 9,
 * when loaded and before each move: where one of them is the adapter's protocol output, arena
 * would read `bestmove 0-1-2` as its move (an illegal one). */
#include <string.h>
#include <unistd.h>

#include "board.h"

static struct board board;

static void scribble(void) {
  static const char line[] = "bestmove 0-1-2\n";
  for (int fd = 3; fd <= 9; fd++) {
    ssize_t written = write(fd, line, strlen(line));
    (void)written;
  }
}

__attribute__((constructor)) static void loaded(void) { scribble(); }

char const *get_player_name(void) { return "fd writer test player"; }

void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]) {
  scribble();
  board_init(&board, player_id, graph, num_queens, queens);
}

struct move_t play(struct move_t previous_move) {
  scribble();
  if (previous_move.queen_src != UINT_MAX) board_apply(&board, 1 - board.me, previous_move);
  struct move_t mv = random_move(&board);
  board_apply(&board, board.me, mv);
  return mv;
}

void finalize(void) { board_free(&board); }
