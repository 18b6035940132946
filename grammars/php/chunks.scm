; PHP entities for the chunker (see grammars/README.md).

(function_definition
  name: (name) @name
  body: (compound_statement) @body) @entity.function

(method_declaration
  name: (name) @name
  body: (compound_statement) @body) @entity.method

; Interface and abstract methods.
(method_declaration
  name: (name) @name
  !body) @entity.method

(class_declaration
  name: (name) @name
  body: (declaration_list) @body) @entity.class

(interface_declaration
  name: (name) @name
  body: (declaration_list) @body) @entity.interface

(trait_declaration
  name: (name) @name
  body: (declaration_list) @body) @entity.trait

(enum_declaration
  name: (name) @name
  body: (enum_declaration_list) @body) @entity.enum

; Only the braced form encloses code; `namespace A\B;` is a one-line statement.
(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement) @body) @entity.namespace

; const X = ...; at file/namespace level and in classes.
(const_declaration
  (const_element (name) @name)) @entity.constant

(namespace_use_declaration) @import

(expression_statement
  [
    (require_expression)
    (require_once_expression)
    (include_expression)
    (include_once_expression)
  ]) @import
