// Send's "Scan a QR code" panel: the camera's picture shows until a QR code reads; its text goes into the field
// (without `lightning:`, and from a BIP21 URI its Lightning invoice) and Continue follows, so the person confirms it
// as they would a paste. The camera stops on a read, on Stop the camera, when the tab changes and when the page is
// hidden (scanner.ts stops every track).
import { lightningPartOf } from './destination.js'
import { CameraProblem, scanQr } from './scanner.js'

export interface ScanPanelParts {
  $: <T extends HTMLElement = HTMLElement>(id: string) => T
  show(id: string, visible: boolean): void
  showError(err: unknown): void
  clearError(): void
}

/** Wires the panel's buttons; answers the stop the page calls when Send is left. */
export function scanPanel({ $, show, showError, clearError }: ScanPanelParts): { stop(): void } {
  /** The scan under way: aborting it stops the camera. */
  let scanning: AbortController | undefined

  const hide = () => {
    show('scan', false)
    $<HTMLButtonElement>('scan-start').disabled = false
  }
  /** Ends a scan under way (its camera stops once its promise settles); nothing when none is. */
  const stop = () => {
    scanning?.abort()
    scanning = undefined
    hide()
  }

  async function scan(): Promise<void> {
    stop()
    clearError()
    const controller = new AbortController()
    scanning = controller
    const state = $('scan-state')
    state.textContent = 'Opening the camera…'
    show('scan', true)
    $<HTMLButtonElement>('scan-start').disabled = true
    try {
      const text = await scanQr($<HTMLVideoElement>('scan-video'), controller.signal, decoder => {
        $('scan').dataset.decoder = decoder
        state.textContent = 'Point the camera at the QR code.'
      })
      if (text === undefined) return
      $<HTMLTextAreaElement>('send-text').value = lightningPartOf(text)
      // As if Continue were pressed (a plain event, where requestSubmit is missing: Safari before 16).
      $('send-form').dispatchEvent(new Event('submit', { cancelable: true }))
    } catch (err) {
      showError(err instanceof CameraProblem ? err : new Error(`The camera stopped: ${err instanceof Error ? err.message : String(err)}`))
    } finally {
      if (scanning === controller) {
        scanning = undefined
        hide()
      }
    }
  }

  $('scan-start').addEventListener('click', () => void scan())
  $('scan-cancel').addEventListener('click', stop)
  // A page out of sight keeps no camera open: the person presses Scan again when back.
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) stop()
  })
  return { stop }
}
