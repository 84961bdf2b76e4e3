// The `svckit/make` entry: the scaffolding behind `svc make:*`, for tools and custom command lines.
export { names, pluralize, wordsOf, type Names } from './names.js';
export {
  generate,
  generateResource,
  GENERATORS,
  isGeneratorKind,
  type GeneratedFile,
  type GeneratorKind,
} from './generate.js';
export type { GenerateOptions, GeneratorDefaults, PrismaClientImport } from './options.js';
export { writeGenerated, FileExistsError } from './write.js';
export { registerResourceInApp, planAppRegistration, type AppRegistration } from './register.js';
export {
  expectedSiblings,
  missingSiblings,
  missingSiblingsWarning,
  serviceSiblingsExist,
} from './siblings.js';
export { editSpec, type SpecEdit, type SpecEditOptions, type SpecEntries } from './spec-edit.js';
export { schemaEntries, routeEntries } from './spec-entries.js';
export { generatorCommands, type MakeCommand, type MakeIo } from './commands.js';
