// Headers as node:http delivers them may repeat; the endpoint reads the first value of the ones it checks.
import type { RequestHeaders } from '../../http/types.js';

export function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
