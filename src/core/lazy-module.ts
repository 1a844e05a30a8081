/**
 * Code loaded on first use instead of with the module that needs it (issue 23: activation
 * loads only what activation needs). The one way to write it:
 *
 *   import type * as OpenAiSdk from 'openai';
 *   const openAiSdk = lazyModule(() => require('openai') as typeof OpenAiSdk);
 *   …
 *   new (openAiSdk().default)(options)   // loaded here, the first time
 *
 * for a module listed in esbuild-config.mjs (LAZY_MODULES; eslint allows require() of those
 * only). The bundler gives each listed module a file of its own in dist/ and leaves the require
 * in place, so nothing of it is read, parsed or run before the first call. Under plain Node
 * (the unit tests, tsx) the require is Node's own. The composition root and the adapters use
 * this, not the core's logic: the agent loop gets what it needs through its ports.
 */
export interface LazyModule<T> {
  /** The module; the first call loads it. */
  (): T;
  /** The module once something loaded it; undefined before (nothing of it can exist yet). */
  readonly loaded: T | undefined;
}

export function lazyModule<T>(load: () => T): LazyModule<T> {
  let module: T | undefined;
  const get = () => (module ??= load());
  return Object.defineProperty(get, 'loaded', { get: () => module }) as LazyModule<T>;
}
