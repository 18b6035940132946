; Bash definitions and references (tree-sitter tags convention).

(function_definition
  name: (word) @name) @definition.function

(program
  ((declaration_command
     (variable_assignment
       name: (variable_name) @name)) @definition.constant
   (#match? @definition.constant "^(readonly|(declare|typeset)\\s+-[a-zA-Z]*r)")))

; source FILE / . FILE
((command
   name: (command_name)
   argument: (_) @name) @reference.module
 (#match? @reference.module "^(source|\\.)\\s"))

; Every other command is a call (of a function or a program).
((command
   name: (command_name (word) @name)) @reference.call
 (#not-match? @name "^(source|\\.)$"))
