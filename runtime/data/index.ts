// The application's data (docs/data.md): a typed repository over one table, on the stores' SQL client.
export {
  repository,
  type KeyValue,
  type ListOptions,
  type Page,
  type Repository,
  type RepositoryColumns,
  type RepositoryOptions,
  type ScopedRepository,
} from './repository.js';
export { snakeCase } from './identifiers.js';
