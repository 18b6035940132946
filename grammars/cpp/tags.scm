; C++ definitions and references (tree-sitter tags convention).

[
  (translation_unit
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (translation_unit
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (translation_unit
    (template_declaration
      (function_definition
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
          (reference_declarator (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
        ]) @definition.function))
  (preproc_if
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_if
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_if
    (template_declaration
      (function_definition
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
          (reference_declarator (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
        ]) @definition.function))
  (preproc_ifdef
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_ifdef
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_ifdef
    (template_declaration
      (function_definition
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
          (reference_declarator (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
        ]) @definition.function))
  (preproc_else
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_else
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_else
    (template_declaration
      (function_definition
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
          (reference_declarator (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
        ]) @definition.function))
  (preproc_elif
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_elif
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (preproc_elif
    (template_declaration
      (function_definition
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
          (reference_declarator (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
        ]) @definition.function))
  (declaration_list
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (declaration_list
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (declaration_list
    (template_declaration
      (function_definition
        declarator: [
          (function_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
          (reference_declarator (function_declarator declarator: (identifier) @name))
          (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
        ]) @definition.function))
  (linkage_specification
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
  (linkage_specification
    (declaration
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]) @definition.function)
]

(field_declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @definition.method)

(field_declaration_list
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ])) @definition.method)

(function_definition
  declarator: [
      (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name)))
      (reference_declarator (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name)))
    ]) @definition.method

(field_declaration
  declarator: [
      (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name)))
      (reference_declarator (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function)] @name)))
    ]) @definition.method

(field_declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @definition.method)

(class_specifier name: [(type_identifier) (qualified_identifier) (template_type)] @name body: (_)) @definition.class
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type
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
  (translation_unit (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_if (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_ifdef (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_else (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (preproc_elif (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
  (declaration_list (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])) @definition.constant)
]
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (_)) @definition.constant

; Calls
(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (parenthesized_expression (identifier) @name)
    (qualified_identifier name: (identifier) @name)
    (qualified_identifier name: (qualified_identifier name: (identifier) @name))
    (template_function name: (identifier) @name)
    (qualified_identifier name: (template_function name: (identifier) @name))
    (field_expression field: (template_method name: (field_identifier) @name))
  ]) @reference.call

; Type uses: any `type:` field that names a type, and tag-only struct/union/enum uses.
(_ type: (type_identifier) @name) @reference.type
(_ type: (qualified_identifier name: (type_identifier) @name)) @reference.type
(_ type: (template_type name: (type_identifier) @name)) @reference.type
(_ type: (qualified_identifier name: (template_type name: (type_identifier) @name))) @reference.type
(template_argument_list (type_descriptor type: (type_identifier) @name)) @reference.type
(struct_specifier name: (type_identifier) @name !body) @reference.type
(union_specifier name: (type_identifier) @name !body) @reference.type
(enum_specifier name: (type_identifier) @name !body) @reference.type
(sizeof_expression type: (type_descriptor type: (type_identifier) @name)) @reference.type

; Instantiation and inheritance
(new_expression type: [(type_identifier) @name (qualified_identifier name: (type_identifier) @name) (template_type name: (type_identifier) @name)]) @reference.class
(base_class_clause [(type_identifier) @name (qualified_identifier name: (type_identifier) @name) (template_type name: (type_identifier) @name)]) @reference.implementation

(preproc_include path: (_) @name) @reference.module
(using_declaration [(identifier) (qualified_identifier)] @name) @reference.module

; Import bindings (see grammars/README.md): an include brings the header's names in unqualified.
(preproc_include path: (_) @import.source)
