// Runtime settings from svc.config.yaml: resolved against the environment at start (the generated
// config.ts calls resolveSvcConfig) and validated; bad values refuse to boot with CONFIG_INVALID.
export {
  resolveSvcConfig,
  SERVER_ADAPTERS,
  SERVER_DEFAULTS,
  type ConfigSpec,
  type ServerAdapter,
  type ServerConfig,
  type StoresConfig,
  type SvcConfig,
} from './svc-config.js';
export {
  resolveConfigWithOrigins,
  templateText,
  type ConfigProblem,
  type ConfigValue,
  type Env,
  type ResolvedConfig,
} from './resolve.js';
export { OptionError, invalidOption, invalidOptions, type OptionErrorCode } from './option-errors.js';
export { rejectUnknownOptions, unknownOption, optionKeys } from './known-options.js';
