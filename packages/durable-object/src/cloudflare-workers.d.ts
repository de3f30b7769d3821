// The one thing this package takes from the Workers runtime, typed as little as it needs: the base
// class whose subclasses workerd lets Workers call by RPC. Applications get the full types from
// @cloudflare/workers-types (or `wrangler types`); this file only lets the package build without them.
declare module 'cloudflare:workers' {
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: unknown;
    protected readonly env: Env;
    constructor(ctx: unknown, env: Env);
  }
}
