; C# entities for the chunker (see grammars/README.md).
; Attributes and modifiers are part of the declaration node.

(namespace_declaration
  name: (_) @name
  body: (declaration_list) @body) @entity.namespace

; `namespace A.B;` holds the rest of the file.
(file_scoped_namespace_declaration
  name: (_) @name) @entity.namespace

(class_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @entity.class

(record_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @entity.class

; Positional record: `record R(int X);` (the grammar makes ";" its body).
(record_declaration
  name: (identifier) @name
  body: ";") @entity.class

(record_struct_declaration
  name: (identifier) @name) @entity.struct

(struct_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @entity.struct

(interface_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @entity.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_member_declaration_list) @body) @entity.enum

(delegate_declaration
  name: (identifier) @name) @entity.type

(method_declaration
  name: (identifier) @name
  body: [(block) (arrow_expression_clause)] @body) @entity.method

; Interface and abstract methods.
(method_declaration
  name: (identifier) @name
  !body) @entity.method

(constructor_declaration
  name: (identifier) @name
  body: [(block) (arrow_expression_clause)] @body) @entity.method

(destructor_declaration
  name: (identifier) @name
  body: [(block) (arrow_expression_clause)] @body) @entity.method

(operator_declaration
  operator: _ @name
  body: [(block) (arrow_expression_clause)] @body) @entity.method

(conversion_operator_declaration
  type: (_) @name
  body: [(block) (arrow_expression_clause)] @body) @entity.method

(local_function_statement
  name: (identifier) @name
  body: [(block) (arrow_expression_clause)] @body) @entity.function

(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator (identifier) @name))) @entity.constant

(using_directive) @import
