// The path option of a plugin that serves one fixed route (an OpenAPI document, a page): a literal path, never
// a pattern, so the plugin names exactly the route it adds.
import { invalidOption } from '../config/option-errors.js';

/** `path` checked for `owner`'s `path` option: a string starting with "/", without ":" or "*". */
export function literalRoutePath(owner: string, path: unknown): string {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes(':') || path.includes('*')) {
    throw invalidOption(owner, 'path', 'a literal path starting with "/"');
  }
  return path;
}
