// zod, for the catalogue's messages and the config. Bundled into one file at build (docs/architecture.md,
// "Packages bundled at build").
export { z } from 'zod'
