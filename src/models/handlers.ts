// The model registry's operations (seed 002) on top of the registry.
import type { HandlerTable } from '../bus/handler.js'
import type { ModelRegistry } from './registry.js'

export function modelHandlers(registry: ModelRegistry): HandlerTable {
  return {
    ModelList: async () => registry.list(),
    ModelDefaultGet: async () => registry.getDefault(),
    ModelDefaultSet: async input => registry.setDefault(input.model),
    // The request stays open until the model is cached (seed 002); a caller that leaves stops waiting, and
    // the transfer stops when no caller is left.
    ModelDownload: async (input, ctx) => registry.download(input.name, ctx.signal),
    ModelDownloadProgress: async input => registry.progress(input.name),
  }
}
