// How an application migration is named, read by the migrator (which applies the files) and by `svc make:*`
// (which writes the next one).

/** `NNNN-kebab-name.sql`: four digits, a dash, lower-case words joined by dashes. */
export const MIGRATION_FILE = /^(\d{4})-([a-z0-9]+(?:-[a-z0-9]+)*)\.sql$/;
