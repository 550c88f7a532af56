// Where model files are fetched from when `[models] base_url` is not set. Called by configuration, which owns
// the environment; nothing deeper reads process.env.

const publicHost = 'https://huggingface.co'
/** The whisper.cpp model repository on the host; files live at `<base>/ggml-<file>.bin`. */
const repoPath = 'ggerganov/whisper.cpp/resolve/main'

/**
 * The default model base URL. `HF_ENDPOINT` replaces the host part (Hugging Face mirrors keep the same path
 * layout), the way the huggingface_hub tools honour it.
 */
export function defaultModelsBaseUrl(env: Record<string, string | undefined>): string {
  const endpoint = env.HF_ENDPOINT?.trim() || publicHost
  return `${endpoint.replace(/\/+$/, '')}/${repoPath}`
}

/** The URL of one model file under a base URL. */
export function modelFileUrl(baseUrl: string, fileName: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${fileName}`
}

/** A URL fit for logs: no credentials, no query string (mirrors may carry tokens there). */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return '<invalid url>'
  }
}
