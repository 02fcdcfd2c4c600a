/* random_engine.c: a UGI engine for arena in C99 with the standard library only, the C twin of
 * engines/python/random_engine.py. It reads every position text of Seven Colors, Amazons and
 * Awale (docs/games.md), lists the legal moves, and plays a random one drawn from a generator
 * seeded by the Seed option, so that a game replays identically.
 *
 * Build: make -C engines/c      Run in a config: - { name: mine, command: engines/c/random_engine }
 *
 * To write your own engine, replace choose_move() (marked STRATEGY below); everything else is
 * protocol and rules. Protocol: docs/protocol.md. Every line out ends in '\n' and is flushed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE ((1 << 20) + 16) /* arena's longest line is 1 MiB */
#define MAX_CELLS 40000           /* Amazons up to 200 x 200 */
#define MAX_PITS 60               /* Awale up to 30 pits a row */

enum game { SEVEN_COLORS, AMAZONS, AWALE };
static const char *const GAME_NAMES[] = {"seven_colors", "amazons", "awale"};

struct position {
  enum game game;
  int width;             /* Seven Colors and Amazons: the side of the square grid */
  char cells[MAX_CELLS]; /* Seven Colors: A..G, 1, 2. Amazons: . # x 1 2 */
  int torus;             /* Seven Colors: 1 on a torus */
  int n;                 /* Awale: pits a row; pits[0..n) first player's, [n..2n) second's */
  int pits[MAX_PITS];
  int score[2];
  char rule[16];         /* Awale: no_capture, capture or forbidden */
  int side;              /* the side to move: 0 first player, 1 second */
};

struct moves {
  char (*text)[40];
  int count, capacity;
};

static char line[MAX_LINE];
static char position_line[MAX_LINE];
static int have_position = 0;
static enum game variant = SEVEN_COLORS;
static unsigned long long seed_option = 0, rng_state = 1;

/* ---------- output and randomness ---------- */

static void say(const char *text) {
  fputs(text, stdout);
  fputc('\n', stdout);
  fflush(stdout); /* an engine that does not flush looks hung to arena */
}

static void reseed(void) { rng_state = seed_option * 2862933555777941757ULL + 3037000493ULL; }

static unsigned long long next_random(void) { /* xorshift64*, the same on every platform */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  if (rng_state == 0) rng_state = 1;
  return rng_state * 2685821657736338717ULL;
}

static void add_move(struct moves *m, const char *text) {
  if (m->count == m->capacity) {
    m->capacity = m->capacity ? 2 * m->capacity : 256;
    m->text = realloc(m->text, (size_t)m->capacity * sizeof *m->text);
    if (m->text == NULL) { fputs("out of memory\n", stderr); exit(1); }
  }
  strncpy(m->text[m->count], text, sizeof m->text[0] - 1);
  m->text[m->count][sizeof m->text[0] - 1] = '\0';
  m->count++;
}

/* ---------- position texts ---------- */

/* The rows of "row/row/.../row" into p->cells; 0 when the grid is not square or too big. */
static int read_grid(struct position *p, const char *rows) {
  int count = 0, width = (int)strcspn(rows, "/ "), height = 1;
  const char *c;
  for (c = rows; *c && *c != ' '; c++) {
    if (*c == '/') { height++; continue; }
    if (count >= MAX_CELLS) return 0;
    p->cells[count++] = *c;
  }
  p->width = width;
  return width > 0 && width == height && count == width * width;
}

static int parse_fen(struct position *p, enum game game, char *fen) {
  char *field[4] = {0};
  int fields = 0, i;
  char *token = strtok(fen, " ");
  memset(p, 0, sizeof *p);
  p->game = game;
  while (token && fields < 4) { field[fields++] = token; token = strtok(NULL, " "); }
  if (game == SEVEN_COLORS) {
    if (fields != 3 || !read_grid(p, field[0])) return 0;
    p->side = field[1][0] == '2';
    p->torus = strcmp(field[2], "torus") == 0;
  } else if (game == AMAZONS) {
    if (fields != 2 || !read_grid(p, field[0])) return 0;
    p->side = field[1][0] == '2';
  } else {
    char *s = field[0];
    if (fields != 4) return 0;
    for (i = 0; *s && i < MAX_PITS; i++) {
      p->pits[i] = (int)strtol(s, &s, 10);
      if (*s == ',' || *s == '/') s++;
    }
    p->n = i / 2;
    if (sscanf(field[1], "%d,%d", &p->score[0], &p->score[1]) != 2) return 0;
    p->side = field[2][0] == '2';
    strncpy(p->rule, field[3], sizeof p->rule - 1);
  }
  return 1;
}

/* ---------- Seven Colors: every colour is legal; a move floods the mover's zone ---------- */

static int neighbour(const struct position *p, int v, int d) { /* 4-neighbours, or -1 */
  static const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
  int w = p->width, r = v / w + dr[d], c = v % w + dc[d];
  if (p->torus) { r = (r + w) % w; c = (c + w) % w; }
  if (r < 0 || r >= w || c < 0 || c >= w) return -1;
  return r * w + c;
}

static void seven_colors_play(struct position *p, char colour) {
  static int stack[MAX_CELLS];
  int top = 0, v, d, u, cells = p->width * p->width;
  char zone = (char)('1' + p->side);
  for (v = 0; v < cells; v++)
    if (p->cells[v] == zone) stack[top++] = v;
  while (top > 0) {
    v = stack[--top];
    for (d = 0; d < 4; d++) {
      u = neighbour(p, v, d);
      if (u >= 0 && p->cells[u] == colour) { p->cells[u] = zone; stack[top++] = u; }
    }
  }
}

/* ---------- Amazons: queen slides, then an arrow, along straight empty lines ---------- */

static const int DR[8] = {-1, -1, 0, 1, 1, 1, 0, -1}, DC[8] = {0, 1, 1, 1, 0, -1, -1, -1};

static int amazons_step(const struct position *p, int v, int d) { /* next vertex or -1 */
  int w = p->width, r = v / w + DR[d], c = v % w + DC[d];
  if (r < 0 || r >= w || c < 0 || c >= w || p->cells[r * w + c] == '#') return -1;
  return r * w + c;
}

static void amazons_moves(const struct position *p, struct moves *m) {
  char queen = (char)('1' + p->side), text[40];
  int q, d, to, d2, arrow, cells = p->width * p->width;
  for (q = 0; q < cells; q++) {
    if (p->cells[q] != queen) continue;
    for (d = 0; d < 8; d++)
      for (to = amazons_step(p, q, d); to >= 0 && p->cells[to] == '.'; to = amazons_step(p, to, d))
        for (d2 = 0; d2 < 8; d2++)
          for (arrow = amazons_step(p, to, d2); arrow >= 0 && (p->cells[arrow] == '.' || arrow == q);
               arrow = amazons_step(p, arrow, d2)) {
            sprintf(text, "%d-%d-%d", q, to, arrow);
            add_move(m, text);
          }
  }
}

static void amazons_play(struct position *p, const char *move) {
  int from, to, arrow;
  if (sscanf(move, "%d-%d-%d", &from, &to, &arrow) != 3) return;
  p->cells[from] = '.';
  p->cells[to] = (char)('1' + p->side);
  p->cells[arrow] = 'x';
}

/* ---------- Awale (abapa): sowing, captures, must-feed and the grand-slam rules ---------- */

/* Sows pit `pit` (1..n on the mover's row); returns the index of the last pit sown. */
static int awale_sow(struct position *p, int pit) {
  int n = p->n, from = p->side * n + pit - 1, seeds = p->pits[from], v = from;
  p->pits[from] = 0;
  while (seeds > 0) {
    v = (v + 1) % (2 * n);
    if (v == from) continue; /* the origin is skipped on every lap */
    p->pits[v]++;
    seeds--;
  }
  return v;
}

/* Pits captured backwards from `last` (in the opponent's row, holding 2 or 3): the first and
 * last index of the chain in *lo_out..last; returns the seeds, and sets *slam when they are
 * every seed of the opponent's row (a grand slam). */
static int awale_chain(const struct position *p, int last, int *lo_out, int *slam) {
  int n = p->n, lo = (1 - p->side) * n, i, captured = 0, left = 0;
  for (i = last; i >= lo && i < lo + n && (p->pits[i] == 2 || p->pits[i] == 3); i--)
    captured += p->pits[i];
  *lo_out = i + 1;
  for (i = lo; i < lo + n; i++) left += p->pits[i];
  *slam = captured > 0 && captured == left;
  return captured;
}

static int row_seeds(const struct position *p, int side) {
  int i, total = 0;
  for (i = side * p->n; i < (side + 1) * p->n; i++) total += p->pits[i];
  return total;
}

static void awale_moves(const struct position *p, struct moves *m) {
  int pit, slam, from, non_slams = 0, starving = row_seeds(p, 1 - p->side) == 0, pass;
  char text[40];
  /* Pass 0 counts legal moves that are not grand slams; pass 1 lists the legal moves. */
  for (pass = 0; pass < 2; pass++)
    for (pit = 1; pit <= p->n; pit++) {
      struct position next = *p;
      if (p->pits[p->side * p->n + pit - 1] == 0) continue;
      awale_chain(&next, awale_sow(&next, pit), &from, &slam);
      if (starving && row_seeds(&next, 1 - p->side) == 0) continue; /* must feed */
      if (pass == 0) { non_slams += !slam; continue; }
      /* forbidden: a grand slam is illegal unless every legal move is one */
      if (strcmp(p->rule, "forbidden") == 0 && slam && non_slams > 0) continue;
      sprintf(text, "%d", pit);
      add_move(m, text);
    }
}

static void awale_play(struct position *p, int pit) {
  int slam, from, i, last = awale_sow(p, pit), captured = awale_chain(p, last, &from, &slam);
  if (!slam || strcmp(p->rule, "capture") == 0) { /* a grand slam captures only under capture */
    for (i = from; i <= last; i++) p->pits[i] = 0;
    p->score[p->side] += captured;
  }
  p->side = 1 - p->side;
}

/* ---------- any game ---------- */

static void legal_moves(const struct position *p, struct moves *m) {
  static const char *const colours[7] = {"A", "B", "C", "D", "E", "F", "G"};
  int i;
  m->count = 0;
  if (p->game == SEVEN_COLORS)
    for (i = 0; i < 7; i++) add_move(m, colours[i]);
  else if (p->game == AMAZONS)
    amazons_moves(p, m);
  else
    awale_moves(p, m);
}

static void play(struct position *p, const char *move) {
  if (p->game == SEVEN_COLORS) {
    seven_colors_play(p, move[0]);
    p->side = 1 - p->side;
  } else if (p->game == AMAZONS) {
    amazons_play(p, move);
    p->side = 1 - p->side;
  } else {
    awale_play(p, atoi(move));
  }
}

/* ======================== STRATEGY: put yours here ========================
 * Return the index in `moves` of the move to play, or -1 to resign. `p` is the position with
 * the side to move in p->side (0 the first player, 1 the second); `moves` is never empty.
 * Use play() on a copy of `p` to look ahead, next_random() for seeded randomness. */
static int choose_move(const struct position *p, const struct moves *moves) {
  (void)p;
  return (int)(next_random() % (unsigned long long)moves->count);
}
/* ========================================================================== */

/* `position fen <fen> [moves <m1> <m2> ...]`, kept in position_line, set up in *p. The runner
 * resends the whole game at every move: when the line extends the one that gave *p (same game,
 * same start, more moves), only the new moves are played (O(n) a game instead of O(n^2));
 * anything else is replayed in full. choose_move must then leave *p as it found it. */
static char played_line[MAX_LINE];
static int played_valid = 0;
static enum game played_variant;

static void play_all(struct position *p, char *moves) {
  char *move;
  for (move = strtok(moves, " \t"); move != NULL; move = strtok(NULL, " \t")) play(p, move);
}

static int set_up(struct position *p) {
  static char copy[MAX_LINE];
  char *fen, *moves;
  size_t n = strlen(played_line);
  strcpy(copy, position_line);
  if (played_valid && variant == played_variant && strncmp(copy, played_line, n) == 0) {
    char *rest = copy + n;
    int had_moves = strstr(played_line, " moves") != NULL;
    if (*rest == '\0') return 1;
    if (had_moves && *rest == ' ') {
      strcpy(played_line, position_line);
      play_all(p, rest);
      return 1;
    }
    if (!had_moves && strncmp(rest, " moves", 6) == 0 && (rest[6] == ' ' || rest[6] == '\0')) {
      strcpy(played_line, position_line);
      play_all(p, rest + 6);
      return 1;
    }
  }
  played_valid = 0;
  fen = strstr(copy, " fen ");
  if (fen == NULL) return 0;
  fen += 5;
  moves = strstr(fen, " moves");
  if (moves != NULL) *moves = '\0';
  if (!parse_fen(p, variant, fen)) return 0;
  if (moves != NULL) play_all(p, moves + 6);
  strcpy(played_line, position_line);
  played_variant = variant;
  played_valid = 1;
  return 1;
}

static void go(void) {
  static struct position p;
  static struct moves moves;
  char out[64];
  int best;
  if (!have_position || !set_up(&p)) {
    say("info string no position to search");
    say("bestmove resign");
    return;
  }
  legal_moves(&p, &moves);
  best = moves.count > 0 ? choose_move(&p, &moves) : -1;
  if (best < 0) {
    say("bestmove resign");
    return;
  }
  sprintf(out, "bestmove %s", moves.text[best]);
  say(out);
}

int main(void) {
  char *name, *value;
  int i;
  while (fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (strcmp(line, "ugi") == 0) {
      say("id name c-random");
      say("id author arena C template");
      say("option name UGI_Variant type combo default seven_colors var seven_colors var amazons "
          "var awale");
      say("option name Seed type spin default 0 min 0 max 9223372036854775807");
      say("ugiok");
    } else if (strcmp(line, "isready") == 0) {
      say("readyok");
    } else if (strncmp(line, "setoption name ", 15) == 0) {
      name = line + 15;
      value = strstr(name, " value ");
      if (value == NULL) continue;
      *value = '\0';
      value += 7;
      if (strcmp(name, "Seed") == 0) {
        seed_option = strtoull(value, NULL, 10);
      } else if (strcmp(name, "UGI_Variant") == 0) {
        for (i = 0; i < 3; i++)
          if (strcmp(value, GAME_NAMES[i]) == 0) variant = (enum game)i;
      }
    } else if (strcmp(line, "uginewgame") == 0) {
      reseed();
      have_position = 0;
      played_valid = 0;
    } else if (strncmp(line, "position ", 9) == 0) {
      strcpy(position_line, line);
      have_position = 1;
    } else if (strncmp(line, "go", 2) == 0 && (line[2] == ' ' || line[2] == '\0')) {
      go();
    } else if (strcmp(line, "quit") == 0) {
      break;
    } /* anything else, such as stop, is ignored: the search is instant */
  }
  return 0;
}
