# tests/cmake/sw_tests.cmake: how a test is registered (included by
# tests/CMakeLists.txt before the folders).
set(SW_TEST_ENV
  "SW_BUILD_DIR=${CMAKE_BINARY_DIR}"
  "SW_SOURCE_DIR=${CMAKE_SOURCE_DIR}")

# sw_add_test(NAME name COMMAND cmd... LABELS l... [TIMEOUT s])
function(sw_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES
    SKIP_RETURN_CODE 77 LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "${SW_TEST_ENV}")
endfunction()

# sw_script_test(NAME LABEL TIMEOUT [SCRIPT file] [ARGS a...] [ENV K=V...]):
# a script of the calling folder, test_<last part of NAME>.sh unless SCRIPT
# names it; ENV runs it under `env K=V...`.  LABEL may be a list ("a;b").
function(sw_script_test name label timeout)
  cmake_parse_arguments(S "" "SCRIPT" "ARGS;ENV" ${ARGN})
  if(NOT S_SCRIPT)
    get_filename_component(base ${name} NAME)
    set(S_SCRIPT test_${base}.sh)
  endif()
  set(envcmd)
  if(S_ENV)
    set(envcmd env ${S_ENV})
  endif()
  sw_add_test(NAME ${name}
    COMMAND ${envcmd} ${CMAKE_CURRENT_SOURCE_DIR}/${S_SCRIPT} ${S_ARGS}
    LABELS ${label} TIMEOUT ${timeout})
endfunction()

# sw_c_test(NAME SOURCE LIBS [LABEL l] [TIMEOUT s]): the test executable
# TARGET built from SOURCE and linked with LIBS (a list), registered as NAME.
function(sw_c_test name target source libs)
  cmake_parse_arguments(C "" "LABEL;TIMEOUT" "" ${ARGN})
  if(NOT C_LABEL)
    set(C_LABEL unit)
  endif()
  add_executable(${target} ${source})
  target_link_libraries(${target} PRIVATE ${libs})
  if(C_TIMEOUT)
    sw_add_test(NAME ${name} COMMAND ${target} LABELS ${C_LABEL} TIMEOUT ${C_TIMEOUT})
  else()
    sw_add_test(NAME ${name} COMMAND ${target} LABELS ${C_LABEL})
  endif()
endfunction()
