# EXECUTORCH_NNAPI_SANITIZE: builds everything below (backend, runner, host shim, the checks in
# runtime/checks) instrumented by a sanitizer (docs/sanitizers.md):
#   address  AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included)
#   thread   ThreadSanitizer
# Host builds only, with clang or gcc; scripts/sanitize.sh configures one build directory per kind.
set(EXECUTORCH_NNAPI_SANITIZE "" CACHE STRING "Sanitizer to build with: address (ASan+UBSan), thread (TSan) or empty")
set_property(CACHE EXECUTORCH_NNAPI_SANITIZE PROPERTY STRINGS "" address thread)

if(EXECUTORCH_NNAPI_SANITIZE STREQUAL "address")
  # UBSan findings abort like ASan's, so no report can scroll past as a warning. No vptr check:
  # it needs RTTI, and the backend is built without (as ExecuTorch is), so every virtual call
  # from the runner into it would be reported.
  set(_sanitizer_flags -fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined)
elseif(EXECUTORCH_NNAPI_SANITIZE STREQUAL "thread")
  set(_sanitizer_flags -fsanitize=thread)
elseif(NOT EXECUTORCH_NNAPI_SANITIZE STREQUAL "")
  message(FATAL_ERROR "EXECUTORCH_NNAPI_SANITIZE='${EXECUTORCH_NNAPI_SANITIZE}': use address, thread or leave it empty")
endif()

if(_sanitizer_flags)
  if(ANDROID OR NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "EXECUTORCH_NNAPI_SANITIZE needs a host build with clang or gcc")
  endif()
  # Frame pointers and -g: whole stacks with file:line in every report.
  add_compile_options(${_sanitizer_flags} -fno-omit-frame-pointer -g -O1)
  add_link_options(${_sanitizer_flags})
endif()
