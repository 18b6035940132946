; Entities and imports for the chunker (see grammars/README.md).
(function_declaration name: (identifier) @name body: (statement_block) @body) @entity.function
(generator_function_declaration name: (identifier) @name body: (statement_block) @body) @entity.function
(function_signature name: (identifier) @name) @entity.function
(class_declaration name: (type_identifier) @name body: (class_body) @body) @entity.class
(abstract_class_declaration name: (type_identifier) @name body: (class_body) @body) @entity.class
(method_definition name: (_) @name body: (statement_block) @body) @entity.method
(method_signature name: (_) @name) @entity.method
(abstract_method_signature name: (_) @name) @entity.method
(interface_declaration name: (type_identifier) @name body: (_) @body) @entity.interface
(type_alias_declaration name: (type_identifier) @name) @entity.type
(enum_declaration name: (identifier) @name body: (enum_body) @body) @entity.enum
(module name: (_) @name body: (statement_block) @body) @entity.module
(internal_module name: (_) @name body: (statement_block) @body) @entity.namespace
(lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @entity.function
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class body: (class_body) @body))) @entity.class
(import_statement) @import
(import_alias) @import
