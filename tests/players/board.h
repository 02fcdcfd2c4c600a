/* What the test players share: the board as the player sees it, kept up to date from the
 * moves, and a uniform random legal move found by following the matrix's codes (t[v][u] = c,
 * then the entry with the same code from u, ...), which is right whatever dir.h says. */
#ifndef BOARD_H
#define BOARD_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "player.h"

struct board {
  unsigned int me, n, m, nq;
  struct graph_t *g;
  unsigned int *queens[NUM_PLAYERS];
  char *blocked; /* edgeless vertices (holes, arrows), arrows shot since, queens */
};

static inline int has_edges(const struct board *b, unsigned int v) {
  return b->g->t->p[v + 1] > b->g->t->p[v];
}

/* The neighbour of v whose step has code c, or -1. */
static inline long step(const struct board *b, unsigned int v, unsigned int c) {
  const gsl_spmatrix_uint *t = b->g->t;
  for (int k = t->p[v]; k < t->p[v + 1]; k++)
    if (t->data[k] == c) return t->i[k];
  return -1;
}

static inline void board_init(struct board *b, unsigned int id, struct graph_t *g, unsigned int nq,
                       unsigned int *queens[NUM_PLAYERS]) {
  b->me = id;
  b->g = g;
  b->n = g->num_vertices;
  b->m = 0;
  while (b->m * b->m < b->n) b->m++;
  b->nq = nq;
  b->blocked = calloc(b->n, 1);
  for (unsigned int v = 0; v < b->n; v++) b->blocked[v] = !has_edges(b, v);
  for (int p = 0; p < NUM_PLAYERS; p++) {
    b->queens[p] = queens[p];
    for (unsigned int i = 0; i < nq; i++) b->blocked[queens[p][i]] = 1;
  }
}

static inline void board_apply(struct board *b, unsigned int p, struct move_t mv) {
  for (unsigned int i = 0; i < b->nq; i++)
    if (b->queens[p][i] == mv.queen_src) b->queens[p][i] = mv.queen_dst;
  b->blocked[mv.queen_src] = 0;
  b->blocked[mv.queen_dst] = 1;
  b->blocked[mv.arrow_dst] = 1;
}

static inline void board_free(struct board *b) {
  gsl_spmatrix_uint_free(b->g->t);
  free(b->g);
  free(b->queens[0]);
  free(b->queens[1]);
  free(b->blocked);
}

/* A uniform random legal move of the player (reservoir sampling with rand()); UINT_MAX
 * everywhere when there is none. */
static inline struct move_t random_move(struct board *b) {
  struct move_t best = {UINT_MAX, UINT_MAX, UINT_MAX};
  unsigned long seen = 0;
  for (unsigned int i = 0; i < b->nq; i++) {
    unsigned int q = b->queens[b->me][i];
    b->blocked[q] = 0;
    for (unsigned int c = 1; c <= 8; c++) {
      for (long to = step(b, q, c); to >= 0 && !b->blocked[to]; to = step(b, to, c)) {
        for (unsigned int c2 = 1; c2 <= 8; c2++) {
          for (long a = step(b, to, c2); a >= 0 && !b->blocked[a]; a = step(b, a, c2)) {
            if (rand() % ++seen == 0) {
              best.queen_src = q;
              best.queen_dst = (unsigned int)to;
              best.arrow_dst = (unsigned int)a;
            }
          }
        }
      }
    }
    b->blocked[q] = 1;
  }
  return best;
}

#endif
