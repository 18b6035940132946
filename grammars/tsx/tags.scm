; inherits: typescript
; TSX definitions and references: TypeScript's, plus JSX components.
; JSX: <Component ...> uses a component (capitalised tags only).
((jsx_opening_element
   name: [(identifier) (member_expression) (nested_identifier)] @name) @reference.class
 (#match? @name "^[A-Z]"))

((jsx_self_closing_element
   name: [(identifier) (member_expression) (nested_identifier)] @name) @reference.class
 (#match? @name "^[A-Z]"))
