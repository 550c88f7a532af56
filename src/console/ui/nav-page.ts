// A page of the console's navigation: its id (the address's hash, #/id), its title in the navigation and its
// component. The core's pages are listed in console.tsx; each extension's come from its console/ folder, through the
// list src/extensions/console.ts.
import type { ComponentType } from 'preact'

export type NavPage = readonly [id: string, title: string, Page: ComponentType]
