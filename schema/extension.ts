// What an extension declares to the ground floor (docs/architecture.md, "Extensions"): its id, its config section and
// the browser pages the build bundles. Each extension's `contract/descriptor.ts` exports one; the list of them,
// src/extensions/descriptors.ts, is what the config schema and the build read, so neither names an extension. Its
// operations are the catalogue's (src/extensions/operations.ts lists them) and its migrations are the .sql files of
// its `migrations/` folder (src/store/migration-files.ts).
import type { ZodType } from 'zod'

export interface ExtensionDescriptor {
  /**
   * The extension's id: the name of its folder in src/extensions/, its catalogue entries' `extension`, the
   * `extra.tag` of its invoices and the `ext_id` of `/api/v1/extension/{ext_id}/enable`.
   */
  readonly id: string
  /**
   * Its config section, the TOML table named by the id (`[restaurant]`): a strict object whose every key has a
   * default, made optional with `.prefault({})`. None: the extension has no settings.
   */
  readonly config?: ZodType
  /**
   * Browser scripts of its customer pages, bundled by the build (scripts/bundle-extension-pages.mjs): `entry` in the
   * extension's folder → build/console/`bundle`, which the page's handler inlines.
   */
  readonly pages: readonly { readonly entry: string; readonly bundle: string }[]
}

/** A descriptor, with its literal types kept (the id, the section's shape) for the config's type. */
export function defineExtension<const D extends ExtensionDescriptor>(descriptor: D): D {
  return descriptor
}

/** The config sections of the listed extensions: `[id]` → that extension's section. */
export type ConfigSectionsOf<L extends readonly ExtensionDescriptor[]> = {
  [D in L[number] as D['config'] extends ZodType ? D['id'] : never]: NonNullable<D['config']>
}

/** The listed extensions' config sections, keyed by id, for the config schema to spread among its own. */
export function configSectionsOf<const L extends readonly ExtensionDescriptor[]>(list: L): ConfigSectionsOf<L> {
  const sections: Record<string, ZodType> = {}
  for (const { id, config } of list) {
    if (id in sections) throw new Error(`two extensions declare the config section [${id}]`)
    if (config) sections[id] = config
  }
  return sections as ConfigSectionsOf<L>
}
