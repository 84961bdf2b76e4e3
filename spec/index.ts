// The spec language: load svc.config.yaml (and module specs, and the error catalog) into the IR the
// generator consumes. Every mistake is reported with file:line:column, what was expected and a hint.
export { loadSpec, loadModuleSpec, type LoadOptions } from './loader/document.js';
export { loadCatalog } from './loader/catalog.js';
export { SpecError, formatProblems, type SpecProblem, type FormatOptions } from './loader/problems.js';
export { defaultCatalogFile } from './loader/package-files.js';
export {
  parseTemplate,
  resolveTemplate,
  resolveConfig,
  rereadScalar,
  MissingEnvError,
  type Env,
} from '../shared/env-template.js';
export { deriveToolName, TOOL_NAME_PATTERN } from '../shared/tool-name.js';
export { parseSize, formatSize, SIZE_UNITS } from '../shared/size.js';
export * from '../shared/ir.js';
