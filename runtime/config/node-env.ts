// Whether the process runs in production: anything but NODE_ENV exactly `development` or
// `test`, an unset value included. Cookies' Secure attribute, the signing-secret rule, where mail goes and the
// start-up notice all follow this one reading.

/**
 * Whether `nodeEnv` counts as production. Called without an argument it reads process.env.NODE_ENV; an
 * explicit `undefined` means unset.
 */
export function isProductionEnv(...args: [nodeEnv?: string | undefined]): boolean {
  const nodeEnv = args.length === 0 ? process.env.NODE_ENV : args[0];
  return nodeEnv !== 'development' && nodeEnv !== 'test';
}
