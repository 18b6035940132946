; Bash entities for the chunker (see grammars/README.md).
; Note: the tree-sitter-bash wasm in tree-sitter-wasms 0.1.13 calls isalpha(), which
; web-tree-sitter 0.25 does not provide: `case` statements and `==`/`!=` inside
; [ ] / [[ ]] make Parser.parse throw ("resolved is not a function").

; name() { ... } and function name { ... }
(function_definition
  name: (word) @name
  body: (_) @body) @entity.function

; readonly X=..., declare -r X=..., typeset -r X=... at the top level.
(program
  ((declaration_command
     (variable_assignment
       name: (variable_name) @name)) @entity.constant
   (#match? @entity.constant "^(readonly|(declare|typeset|local)\\s+-[a-zA-Z]*r)")))

; source FILE and . FILE
((command
   name: (command_name)) @import
 (#match? @import "^(source|\\.)\\s"))
