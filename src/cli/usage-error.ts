// A command line that does not say what to do (a missing argument, a bad flag value): the CLI
// prints the message with the usage and exits 2.
export class UsageError extends Error {}
