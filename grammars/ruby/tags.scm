; Ruby definitions and references (tree-sitter tags convention).

(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(alias name: (_) @name) @definition.method

(class
  name: [
    (constant) @name
    (scope_resolution name: (_) @name)
  ]) @definition.class

(singleton_class
  value: [
    (constant) @name
    (scope_resolution name: (_) @name)
  ]) @definition.class

(module
  name: [
    (constant) @name
    (scope_resolution name: (_) @name)
  ]) @definition.module

(assignment
  left: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]) @definition.constant

; Calls
(call method: (identifier) @name) @reference.call

; Foo.new(...) instantiates Foo
((call
   receiver: [
     (constant) @name
     (scope_resolution name: (constant) @name)
   ]
   method: (identifier)) @reference.class
 (#match? @reference.class "\\.new$|\\.new[\\s({]"))

; Inheritance and mixins
(superclass
  [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]) @reference.implementation

((call
   !receiver
   method: (identifier)
   arguments: (argument_list
     [
       (constant) @name
       (scope_resolution name: (constant) @name)
     ])) @reference.implementation
 (#match? @reference.implementation "^(include|extend|prepend)[\\s(]"))

; Other constant uses (receivers, arguments, rescue clauses)
(call receiver: (constant) @name) @reference.type
(scope_resolution scope: (constant) @name) @reference.type
(exceptions (constant) @name) @reference.type

; require "x" / require_relative "x"
((call
   !receiver
   method: (identifier)
   arguments: (argument_list (string (string_content) @name))) @reference.module
 (#match? @reference.module "^(require|require_relative|load)[\\s(]"))
