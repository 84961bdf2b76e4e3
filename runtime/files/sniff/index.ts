// Content sniffing for uploads: the built-in sniffer, the type rules, and the decision the upload path applies.
export { SNIFF_WINDOW_BYTES, sniffContentType } from './sniff.js';
export {
  decideContentType,
  resolveContentType,
  type ContentTypeClaim,
  type DecideContentTypeOptions,
  type ResolvedContentType,
  type SniffFunction,
  type SniffOption,
} from './resolve.js';
export {
  OCTET_STREAM,
  SIGNATURE_TYPES,
  compatibleTypes,
  isActiveType,
  isInertType,
  normalizeContentType,
  typeAllowed,
} from './types.js';
