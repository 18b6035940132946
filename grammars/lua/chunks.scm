; Lua entities for the chunker (see grammars/README.md).
; This grammar (tree-sitter-lua 2.x in tree-sitter-wasms) names function statements
; function_definition_statement / local_function_definition_statement, and a dotted
; or colon name is a (variable table: field: | method:) node.

; function M:name(...) -- named "M:name"
(function_definition_statement
  name: (variable method: (identifier)) @name
  body: (block)? @body) @entity.method

; function name(...) / function M.name(...) -- named "name" / "M.name"
(function_definition_statement
  name: (variable !method) @name
  body: (block)? @body) @entity.function

(local_function_definition_statement
  name: (identifier) @name
  body: (block)? @body) @entity.function

; local f = function(...) ... end / M.f = function(...) ... end
(local_variable_declaration
  (variable_list . (variable name: (identifier) @name))
  (expression_list . value: (function_definition body: (block)? @body))) @entity.function

(variable_assignment
  (variable_list . (variable) @name)
  (expression_list . value: (function_definition body: (block)? @body))) @entity.function

; Top-level constants: local UPPER_CASE = ..., local x <const> = ...
(chunk
  ((local_variable_declaration
     (variable_list
       (variable name: (identifier) @name))) @entity.constant
   (#match? @name "^[A-Z][A-Z0-9_]*$")))

(chunk
  ((local_variable_declaration
     (variable_list
       (variable
         name: (identifier) @name
         (attribute)))) @entity.constant
   (#match? @entity.constant "^local\\s+[^=]*<\\s*const\\s*>")
   (#not-match? @name "^[A-Z][A-Z0-9_]*$")))

; local x = require("x") and bare require("x")
((local_variable_declaration
   (expression_list
     value: (call function: (variable name: (identifier))))) @import
 (#match? @import "^local\\s+[^=]*=\\s*require\\b"))

(chunk
  ((call
     function: (variable name: (identifier))) @import
   (#match? @import "^require\\b")))
