; Lua definitions and references (tree-sitter tags convention).

(function_definition_statement
  name: [
    (identifier) @name
    (variable !table name: (identifier) @name)
    (variable table: (_) field: (identifier) @name)
  ]) @definition.function

(function_definition_statement
  name: (variable table: (_) method: (identifier) @name)) @definition.method

(local_function_definition_statement
  name: (identifier) @name) @definition.function

(local_variable_declaration
  (variable_list . (variable name: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function

(variable_assignment
  (variable_list . [
    (variable !table name: (identifier) @name)
    (variable table: (_) field: (identifier) @name)
  ])
  (expression_list . value: (function_definition))) @definition.function

(chunk
  ((local_variable_declaration
     (variable_list
       (variable name: (identifier) @name))) @definition.constant
   (#match? @name "^[A-Z][A-Z0-9_]*$")))

; Calls: f(), t.f(), obj:m()
(call
  function: [
    (variable !table name: (identifier) @name)
    (variable table: (_) field: (identifier) @name)
    (variable table: (_) method: (identifier) @name)
  ]) @reference.call

; require("x") / require "x"
((call
   function: (variable !table name: (identifier))
   arguments: (argument_list (expression_list (string) @name))) @reference.module
 (#match? @reference.module "^require\\b"))

((call
   function: (variable !table name: (identifier))
   arguments: (argument_list (string) @name)) @reference.module
 (#match? @reference.module "^require\\b"))
