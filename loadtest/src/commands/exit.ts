/** The CLI's exit codes: every SLO held, one breached, a usage or setup error. */
export const EXIT = { held: 0, breached: 1, usage: 2 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
