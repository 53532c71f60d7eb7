// The stored entities, the store protocols and their errors live in ParleyData (no GRDB), which
// the faces use; whoever imports this SQLite store gets them too.
@_exported import ParleyData
