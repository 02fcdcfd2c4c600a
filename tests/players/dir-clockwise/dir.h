/* dir.h, corrected course version: codes clockwise from north. */
#ifndef DIR_H
#define DIR_H
enum dir_t { NO_DIR = 0, DIR_NORTH = 1, DIR_NE = 2, DIR_EAST = 3, DIR_SE = 4,
             DIR_SOUTH = 5, DIR_SW = 6, DIR_WEST = 7, DIR_NW = 8 };
#endif
