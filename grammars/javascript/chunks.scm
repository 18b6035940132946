; Entities and imports for the chunker (see grammars/README.md).
(function_declaration name: (identifier) @name body: (statement_block) @body) @entity.function
(generator_function_declaration name: (identifier) @name body: (statement_block) @body) @entity.function
(class_declaration name: (identifier) @name body: (class_body) @body) @entity.class
(method_definition name: (_) @name body: (statement_block) @body) @entity.method
(lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @entity.function
(variable_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @entity.function
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class body: (class_body) @body))) @entity.class
(import_statement) @import
(lexical_declaration
  (variable_declarator value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @import
