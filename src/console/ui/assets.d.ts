// esbuild bundles imported stylesheets into console.css; to the type checker they are modules with no exports.
declare module '*.css'
