/**
 * Where the engine says what went wrong that no caller is told (a money path's caught failure,
 * with the row it concerns): the process's log (stderr for `coffer serve`, the data dir's
 * logs/desktop.log for the desktop app). One line each; never a key, a phrase or a passphrase.
 */
export type Log = (message: string) => void;
