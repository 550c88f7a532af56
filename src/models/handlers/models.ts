// The model registry's operations and the recordings built on it, mapped onto the rooms.
import type { HandlerTable } from '../../bus/index.js'
import type { Recordings } from '../recordings.js'
import type { ModelRegistry } from '../registry.js'

export function modelHandlers(registry: ModelRegistry, recordings?: Recordings): HandlerTable {
  return {
    ModelList: async () => registry.list(),
    ModelDefaultGet: async () => registry.getDefault(),
    ModelDefaultSet: async input => registry.setDefault(input.model),
    // The request stays open until the model is cached, as registry clients expect; a caller that leaves stops waiting,
    // and the transfer stops when no caller is left.
    ModelDownload: async (input, ctx) => registry.download(input.name, ctx.signal),
    ModelDownloadProgress: async input => registry.progress(input.name),
    OperatorDeleteModel: async input => registry.remove(input.name),
    ...(recordings && {
      // Open until the transcription is done; a caller that leaves drops its queued job or stops the running one.
      RecordingCreate: async (input, ctx) => recordings.create(input, ctx.caller, ctx.signal),
      RecordingGet: async (input, ctx) => recordings.get(input.id, ctx.caller),
      RecordingList: async (input, ctx) => recordings.list(ctx.caller, input),
    }),
  } satisfies HandlerTable
}
