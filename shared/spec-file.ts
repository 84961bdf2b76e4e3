// The name of a project's spec, read by the CLI's commands and written by `svc make:*`.
export const SPEC_FILE = 'svc.config.yaml';
