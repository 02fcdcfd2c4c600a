/* A UGI engine in C for the class championship tests: plays Awale only, always the first
 * legal pit of its row (the lowest number). Follows the rules of docs/games.md: sowing skips
 * the origin pit, captures of 2 or 3 run back along the opponent's row, a starved opponent
 * must be fed, and a grand slam follows the position's rule. Standard C only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PITS 32

static int pits[2 * MAX_PITS], n, side; /* side: 0 first player, 1 second */
static char grand_slam[32];

static int row_start(int s) { return s == 0 ? 0 : n; }
static int on_row(int k, int s) { return k >= row_start(s) && k < row_start(s) + n; }

/* Sows pit i (an absolute index) into out; returns whether it was a grand slam. */
static int sow(const int *in, int *out, int i, int capture_grand_slam) {
    int j = i, seeds = in[i], total = 2 * n, other = 1 - side, taken = 0, left = 0, k;
    memcpy(out, in, sizeof(int) * total);
    out[i] = 0;
    while (seeds) {
        j = (j + 1) % total;
        if (j != i) { out[j]++; seeds--; }
    }
    for (k = j; on_row(k, other) && (out[k] == 2 || out[k] == 3); k--) taken += out[k];
    for (k = row_start(other); k < row_start(other) + n; k++) left += out[k];
    if (taken > 0 && taken == left) {
        if (!capture_grand_slam) return 1;
    }
    for (k = j; on_row(k, other) && (out[k] == 2 || out[k] == 3); k--) out[k] = 0;
    return taken > 0 && taken == left;
}

static int legal(int p) { /* p: 0..n-1 on the mover's row */
    int i = row_start(side) + p, k, starving = 1;
    if (pits[i] == 0) return 0;
    for (k = row_start(1 - side); k < row_start(1 - side) + n; k++) if (pits[k]) starving = 0;
    return !starving || pits[i] >= n - p;
}

static void play(int p) {
    int out[2 * MAX_PITS];
    sow(pits, out, row_start(side) + p, strcmp(grand_slam, "capture") == 0);
    memcpy(pits, out, sizeof(int) * 2 * n);
    side = 1 - side;
}

static int choose(void) {
    int p, out[2 * MAX_PITS], fallback = -1;
    for (p = 0; p < n; p++) {
        if (!legal(p)) continue;
        if (strcmp(grand_slam, "forbidden") == 0 && sow(pits, out, row_start(side) + p, 1)) {
            if (fallback < 0) fallback = p;
            continue;
        }
        return p;
    }
    return fallback;
}

static void position(char *text) {
    char *rows = strtok(text, " "), *scores = strtok(NULL, " "), *who = strtok(NULL, " ");
    char *rule = strtok(NULL, " \n"), *word, *cell;
    int k = 0;
    (void)scores;
    for (cell = rows; *cell; cell++) if (*cell == '/') *cell = ',';
    {
        char *p = rows;
        while (*p && k < 2 * MAX_PITS) {
            pits[k++] = (int)strtol(p, &p, 10);
            if (*p == ',') p++;
        }
    }
    n = k / 2;
    side = who && who[0] == '2';
    snprintf(grand_slam, sizeof grand_slam, "%s", rule ? rule : "no_capture");
    word = strtok(NULL, " \n");
    if (word && strcmp(word, "moves") == 0)
        while ((word = strtok(NULL, " \n"))) play(atoi(word) - 1);
}

int main(void) {
    char line[65536];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "ugi", 3) == 0 && (line[3] == '\n' || line[3] == '\0')) {
            printf("id name first-pit\nid author arena tests\n");
            printf("option name UGI_Variant type combo default awale var awale\nugiok\n");
        } else if (strncmp(line, "isready", 7) == 0) {
            printf("readyok\n");
        } else if (strncmp(line, "position fen ", 13) == 0) {
            position(line + 13);
        } else if (strncmp(line, "go", 2) == 0) {
            int p = choose();
            if (p < 0) printf("bestmove resign\n"); else printf("bestmove %d\n", p + 1);
        } else if (strncmp(line, "quit", 4) == 0) {
            return 0;
        }
    }
    return 0;
}
