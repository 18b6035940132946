; C entities for the chunker (see grammars/README.md).
; Generated shapes: a function's name sits inside its declarator, possibly under
; pointer (`int *f(void)`, `char **f(void)`) declarators.
; Outside a class body, the definitions that are entities are those directly in a
; file, a namespace / extern block, or a preprocessor conditional (header guards).

; ---- functions
(translation_unit
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_if
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_ifdef
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_else
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_elif
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

; Prototypes (header files).
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_if
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_ifdef
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_else
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_elif
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

; ---- structs, unions, enums (with a body)
[
  (translation_unit (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_if (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_ifdef (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_else (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_elif (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration_list (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (field_declaration (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (compound_statement (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
]

[
  (translation_unit (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_if (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_ifdef (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_else (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_elif (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration_list (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (field_declaration (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (compound_statement (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
]

[
  (translation_unit (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_if (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_ifdef (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_else (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_elif (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (declaration_list (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (declaration (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (field_declaration (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (compound_statement (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
]

; typedef struct [tag] {...} name_t; is one entity named by the typedef name.
(type_definition
  type: (struct_specifier body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @entity.struct

(type_definition
  type: (union_specifier body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @entity.struct

(type_definition
  type: (enum_specifier body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @entity.enum

; Other typedefs: plain, pointer and function-pointer types.
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (macro_type_specifier)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
  ]) @entity.type

; ---- constants: const-qualified variables at file or namespace scope, object-like #defines
(translation_unit
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_if
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_ifdef
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_else
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_elif
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(declaration_list
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_def
  name: (identifier) @name
  value: (preproc_arg)) @entity.constant

(preproc_function_def
  name: (identifier) @name) @entity.macro

(preproc_include) @import
