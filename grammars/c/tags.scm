; C definitions and references (tree-sitter tags convention).

(function_definition
  declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function

(declaration
  declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.type
(enumerator name: (identifier) @name) @definition.constant
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
  ]) @definition.type
[
  (translation_unit (declaration (type_qualifier "const") declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_if (declaration (type_qualifier "const") declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_ifdef (declaration (type_qualifier "const") declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_else (declaration (type_qualifier "const") declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_elif (declaration (type_qualifier "const") declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (declaration_list (declaration (type_qualifier "const") declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
]
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (_)) @definition.constant

; Calls
(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (parenthesized_expression (identifier) @name)
  ]) @reference.call

; Type uses: any `type:` field that names a type, and tag-only struct/union/enum uses.
(_ type: (type_identifier) @name) @reference.type
(struct_specifier name: (type_identifier) @name !body) @reference.type
(union_specifier name: (type_identifier) @name !body) @reference.type
(enum_specifier name: (type_identifier) @name !body) @reference.type
(sizeof_expression type: (type_descriptor type: (type_identifier) @name)) @reference.type

(preproc_include path: (_) @name) @reference.module

; Import bindings (see grammars/README.md): an include brings the header's names in unqualified.
(preproc_include path: (_) @import.source)
