#!/bin/sh
# The public API's naming convention (include/stir/stir.h), what of it a
# script can see: reads the headers given as arguments and prints one line
# "RULE name" for every exported declaration that breaks a rule.  Used by
# tests/test_api_names.sh on include/stir/*.h and on the sample
# tests/lint/api_names_bad.h.
for h in "$@"; do
	# one exported declaration a line, spaces squeezed
	tr '\n\t' '  ' < "$h" | tr ';' '\n' | sed -n 's/.*STIR_EXPORT //p' |
	sed 's/  */ /g' | while IFS= read -r d; do
		ret=${d%%(*}
		name=${ret##*[ *]}
		ret=${ret%"$name"}
		params=${d#*(}
		case $name in
		*_create|*_create_*|*_destroy|*_destroy_*|*_open|*_open_*|\
		*_close|*_close_*|*_new|*_new_*|*_delete|*_delete_*)
			echo "lifecycle $name";;
		esac
		case $name in *_alloc*)
			case $ret in *__stir_keep*) echo "alloc-borrowed $name";;
			esac;;
		esac
		case $ret in *__stir_give*)
			case $name in *_get_*|*_find_*)
				echo "get-owned $name";; esac;;
		esac
		case $name in *from_file*|*from_mem*|*from_str*)
			case $name in *_read_*) ;;
			*) echo "reader $name";; esac;;
		esac
		case $ret in *__stir_give*)
			case $name in *_read|*_read_file*)
				echo "reader $name";; esac;;
		esac
		case $name in *_count|*_count_*|*_get_n_*|*_n)
			echo "count $name";; esac
		case $name in *_check|*_check_*) echo "check $name";; esac
		case $ret in bool\ *|*\ bool\ *)
			case $name in *_is_*|*_get_*|*_fits) ;;
			*) echo "bool $name";; esac;;
		esac
		case $h in *passes.h)
			case $name in stir_kernel_*) echo "pass $name";; esac;;
		esac
		case $name in stir_kernel_n_params|stir_arg_pack_n_params) ;;
		*_params*) echo "params $name";;
		esac
		# a counted array: the count, then the array (an array followed
		# by a count is fine when the count's own array follows it)
		if printf '%s\n' "$params" | grep -Eq \
		    '\*(const )?[a-z_]*s, int n[a-z_]*(\)|, [^,*]*[,)])'; then
			echo "array-count $name"
		fi
	done
	# the types: a recipe's configuration is a candidate
	tr '\n' ' ' < "$h" | grep -o 'typedef struct stir_[a-z0-9_]*_params\b' |
	sed 's/typedef struct /params /'
done
