/* The course's Amazons player interface (player.h, graph.h, move.h in one file), written from
 * the spec in issue 10 for arena's tests: player 0 moves first; the player frees the graph and
 * the queen arrays it is given. */
#ifndef PLAYER_H
#define PLAYER_H

#include <gsl/gsl_spmatrix.h>

#define NUM_PLAYERS 2

struct graph_t {
  unsigned int num_vertices; /* n = m*m, holes included as vertices without edges */
  gsl_spmatrix_uint *t;      /* CSR; t[i][j] = direction code of the step i -> j, else 0 */
};

struct move_t {
  unsigned int queen_src;
  unsigned int queen_dst;
  unsigned int arrow_dst;
};

char const *get_player_name(void);
void initialize(unsigned int player_id, struct graph_t *graph, unsigned int num_queens,
                unsigned int *queens[NUM_PLAYERS]);
struct move_t play(struct move_t previous_move);
void finalize(void);

#endif
