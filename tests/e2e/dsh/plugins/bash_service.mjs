// The `bash` executor service that @deepseek-ai/dsh-hooks-codex 0.0.1-rc.1 injects, backed by
// dsh 0.1.0-rc.8's `shell` service (the host has no `bash` service, so without this row the
// bridge never activates and dsh exits 1 at boot). The bridge calls only resolve() and run().
export const name = 'loopguard-e2e-bash-service'
export const inject = ['shell']

export function apply(ctx) {
  const forward = (method) => (...args) => ctx.shell[method](...args)
  ctx.provide('bash', { resolve: forward('resolve'), run: forward('run') })
}
