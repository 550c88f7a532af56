// Models: the transcription catalogue with what is cached, the default, a download with live progress (the
// download call stays open until the file is cached; progress is read beside it), and deleting a cached file.
import { useEffect, useState } from 'preact/hooks'
import { call } from '../api.js'
import { Section, Status, Table, useAction, useLoad } from '../parts.js'

const base = '/transcription/api/v1'

interface Model {
  name: string
  display_name: string
  params: string
  approx_memory: string
  is_default: boolean
  downloaded: boolean
}

interface Progress {
  state: string
  received_bytes: number
  total_bytes: number
  error?: string
}

export function Models() {
  const list = useLoad(() => call<{ default_model: string; local_engine_installed: boolean; models: Model[] }>(`${base}/models`))
  const [progress, setProgress] = useState<Record<string, Progress>>({})
  const [downloading, setDownloading] = useState<string[]>([])
  const action = useAction()

  useEffect(() => {
    if (downloading.length === 0) return
    const timer = setInterval(async () => {
      for (const name of downloading) {
        const p = await call<Progress>(`${base}/models/${name}/download`).catch(() => undefined)
        if (p) setProgress(all => ({ ...all, [name]: p }))
      }
    }, 300)
    return () => clearInterval(timer)
  }, [downloading])

  const download = (name: string) => action.run(async () => {
    setDownloading(names => [...names, name])
    try {
      await call(`${base}/models/${name}/download`, { method: 'POST' })
      setProgress(all => ({ ...all, [name]: { state: 'downloaded', received_bytes: all[name]?.total_bytes ?? 1, total_bytes: all[name]?.total_bytes ?? 1 } }))
      return `${name} downloaded.`
    } finally {
      setDownloading(names => names.filter(n => n !== name))
      list.reload()
    }
  })
  const percent = (p: Progress) => (p.total_bytes ? Math.floor((p.received_bytes * 100) / p.total_bytes) : 0)
  return (
    <>
      <h1>Models</h1>
      <Status error={list.error ?? action.error} ok={action.ok} />
      {list.data && !list.data.local_engine_installed && (
        <p class="hint">The local transcription engine is not installed (npm install @fugood/whisper.node): models cannot be downloaded.</p>
      )}
      <Section title="Transcription models">
        <Table caption="Models" head={['Model', 'Size', 'Memory', 'Cached', 'Default', 'Actions']}
          rows={(list.data?.models ?? []).map(m => {
            const p = progress[m.name]
            const active = downloading.includes(m.name)
            return [
              m.display_name || m.name,
              m.params,
              m.approx_memory,
              p && (active || p.state === 'downloaded') ? (
                <span class="progress">
                  <progress max={100} value={percent(p)} aria-label={`Download of ${m.name}`} />
                  <span data-testid={`progress-${m.name}`}>{percent(p)}%</span>
                </span>
              ) : m.downloaded ? 'yes' : 'no',
              m.is_default ? 'default' : (
                <button type="button" class="secondary" aria-label={`Make ${m.name} the default`} onClick={() => action.run(async () => {
                  await call(`${base}/models/default`, { method: 'PUT', body: { model: m.name } })
                  list.reload()
                  return `${m.name} is the default now.`
                })}>Make default</button>
              ),
              <span class="actions">
                {!m.downloaded && (
                  <button type="button" disabled={active || !list.data?.local_engine_installed} aria-label={`Download ${m.name}`} onClick={() => download(m.name)}>
                    {active ? 'Downloading…' : 'Download'}
                  </button>
                )}
                {m.downloaded && (
                  <button type="button" class="danger" aria-label={`Delete ${m.name}`} onClick={() => confirm(`Delete the cached ${m.name} model?`) && action.run(async () => {
                    await call(`/api/operator/models/${m.name}`, { method: 'DELETE' })
                    setProgress(all => ({ ...all, [m.name]: undefined as unknown as Progress }))
                    list.reload()
                    return `${m.name} deleted.`
                  })}>Delete</button>
                )}
              </span>,
            ]
          })} />
      </Section>
    </>
  )
}
