/* league_cmd.h -- `maat-ladder league ...` (league_cmd.c). */
#ifndef MAAT_LEAGUE_CMD_H
#define MAAT_LEAGUE_CMD_H

/* argv after "league": new, add, retire, run, status.  The exit code. */
int maat_league_cmd(int argc, char **argv);

#endif
