; Entities and imports for the chunker (see grammars/README.md).
(class_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?) @body) @entity.class
(function_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?) @body) @entity.function
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
