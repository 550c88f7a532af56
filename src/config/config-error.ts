// What loading the configuration, or a listener that cannot open the port it names, throws.

/** Configuration problems, one line each naming the key and where it came from (`problems`; joined in `message`). */
export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly problems: string[]

  constructor(problems: string | string[]) {
    const list = typeof problems === 'string' ? [problems] : problems
    super(list.join('\n'))
    this.problems = list
  }
}
