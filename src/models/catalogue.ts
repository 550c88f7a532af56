// The supported whisper.cpp ggml models (the list is ours to choose: the registry's interface names none).
// Byte sizes and SHA-1 are pinned so a download is accepted only when it is exactly the published file: the SHA-1
// values are first-party (whisper.cpp models/README.md), the sizes come from the host's LFS metadata.

export interface CatalogueEntry {
  /** Model identifier on the wire (≤ 32 characters: the registry refuses a longer `model`). */
  name: string
  /** File stem: the cached and hosted file is `ggml-<file>.bin`. */
  file: string
  bytes: number
  sha1: string
  display_name: string
  description: string
  params: string
  approx_memory: string
  relative_speed: string
}

/** The model used when no default was ever set (fits machines with 2 GB of memory). */
export const fallbackDefaultModel = 'base'

// Memory labels are whisper.cpp's CPU figures rounded; speeds are OpenAI's, relative to large-v3.
const speedNote = 'Speed is relative to large-v3 on the same machine.'

export const whisperCatalogue: readonly CatalogueEntry[] = [
  {
    name: 'tiny',
    file: 'tiny',
    bytes: 77691713,
    sha1: 'bd577a113a864445d4c299885e0cb97d4ba92b5f',
    display_name: 'Tiny',
    description: `Fastest and least accurate; multilingual. ${speedNote}`,
    params: '39M',
    approx_memory: '~270 MB',
    relative_speed: '~10x',
  },
  {
    name: 'tiny.en',
    file: 'tiny.en',
    bytes: 77704715,
    sha1: 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df',
    display_name: 'Tiny (English)',
    description: `Fastest and least accurate; English only, slightly better than tiny for English. ${speedNote}`,
    params: '39M',
    approx_memory: '~270 MB',
    relative_speed: '~10x',
  },
  {
    name: 'base',
    file: 'base',
    bytes: 147951465,
    sha1: '465707469ff3a37a2b9b8d8f89f2f99de7299dac',
    display_name: 'Base',
    description: `Fast with fair accuracy; multilingual. The default. ${speedNote}`,
    params: '74M',
    approx_memory: '~390 MB',
    relative_speed: '~7x',
  },
  {
    name: 'base.en',
    file: 'base.en',
    bytes: 147964211,
    sha1: '137c40403d78fd54d454da0f9bd998f78703390c',
    display_name: 'Base (English)',
    description: `Fast with fair accuracy; English only, slightly better than base for English. ${speedNote}`,
    params: '74M',
    approx_memory: '~390 MB',
    relative_speed: '~7x',
  },
  {
    name: 'small',
    file: 'small',
    bytes: 487601967,
    sha1: '55356645c2b361a969dfd0ef2c5a50d530afd8d5',
    display_name: 'Small',
    description: `Balanced speed and accuracy; multilingual. ${speedNote}`,
    params: '244M',
    approx_memory: '~850 MB',
    relative_speed: '~4x',
  },
  {
    name: 'small.en',
    file: 'small.en',
    bytes: 487614201,
    sha1: 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022',
    display_name: 'Small (English)',
    description: `Balanced speed and accuracy; English only. ${speedNote}`,
    params: '244M',
    approx_memory: '~850 MB',
    relative_speed: '~4x',
  },
  {
    name: 'medium',
    file: 'medium',
    bytes: 1533763059,
    sha1: 'fd9727b6e1217c2f614f9b698455c4ffd82463b4',
    display_name: 'Medium',
    description: `Accurate but slow; multilingual. ${speedNote}`,
    params: '769M',
    approx_memory: '~2.1 GB',
    relative_speed: '~2x',
  },
  {
    name: 'medium.en',
    file: 'medium.en',
    bytes: 1533774781,
    sha1: '8c30f0e44ce9560643ebd10bbe50cd20eafd3723',
    display_name: 'Medium (English)',
    description: `Accurate but slow; English only. ${speedNote}`,
    params: '769M',
    approx_memory: '~2.1 GB',
    relative_speed: '~2x',
  },
  {
    name: 'large-v3',
    file: 'large-v3',
    bytes: 3095033483,
    sha1: 'ad82bf6a9043ceed055076d0fd39f5f186ff8062',
    display_name: 'Large v3',
    description: `Most accurate and slowest; multilingual. ${speedNote}`,
    params: '1550M',
    approx_memory: '~3.9 GB',
    relative_speed: '1x',
  },
  {
    name: 'turbo',
    file: 'large-v3-turbo',
    bytes: 1624555275,
    sha1: '4af2b29d7ec73d781377bfd1758ca957a807e941',
    display_name: 'Large v3 Turbo',
    description: `Large v3 with a pruned decoder: close to its accuracy, much faster; multilingual. ${speedNote}`,
    params: '809M',
    approx_memory: '~2 GB',
    relative_speed: '~8x',
  },
]

/** `ggml-<file>.bin`, the name on the model host and in the local cache. */
export function modelFileName(entry: CatalogueEntry): string {
  return `ggml-${entry.file}.bin`
}
