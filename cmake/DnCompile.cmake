# Warnings and sanitizers for every devnet target: call dn_target(NAME).
set(DN_WARNINGS -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes
    -Wwrite-strings -Wvla -Wshadow -Wno-unused-parameter)

if(DN_SANITIZE)
	string(REPLACE "," ";" _dn_san "${DN_SANITIZE}")
	set(DN_SANITIZE_FLAGS -fno-omit-frame-pointer)
	foreach(s ${_dn_san})
		list(APPEND DN_SANITIZE_FLAGS -fsanitize=${s})
	endforeach()
	if("undefined" IN_LIST _dn_san)
		list(APPEND DN_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
	endif()
	add_compile_options(${DN_SANITIZE_FLAGS})
	add_link_options(${DN_SANITIZE_FLAGS})
endif()

function(dn_target name)
	target_compile_options(${name} PRIVATE ${DN_WARNINGS})
	if(DN_WERROR)
		target_compile_options(${name} PRIVATE -Werror)
	endif()
	target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
endfunction()
