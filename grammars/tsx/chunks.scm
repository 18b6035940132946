; inherits: typescript
; TSX entities are TypeScript's (see grammars/README.md).
