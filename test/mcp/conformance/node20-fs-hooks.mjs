// Module-customization hooks (run on Node's loader thread; installed by register.mjs).
// Only `fs` / `node:fs` imported from inside the conformance package are redirected, so the runner's
// dependencies, the SDK and anything else in the process keep the untouched built-in module.
const SHIM_URL = new URL('./node20-fs-shim.mjs', import.meta.url).href;

// Matches any install location (repo node_modules, npx cache, nested installs); `\\` for Windows paths.
const RUNNER_PACKAGE = /[/\\]node_modules[/\\]@modelcontextprotocol[/\\]conformance[/\\]/;

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL !== undefined &&
    RUNNER_PACKAGE.test(decodeURIComponent(context.parentURL))
  ) {
    return { url: SHIM_URL, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
