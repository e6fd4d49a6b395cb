#!/usr/bin/env python3
"""Unit test of scripts/sass_hazards.py on hand-written SASS (CTest: sass_hazards_scanner)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'scripts'))
import sass_hazards  # noqa: E402

HEAD = '\t\tFunction : kernel_a\n'
# A register-A wgmma (A in R152..R155), then an instruction per case, then the wait.
HGMMA = '        /*1f90*/                   HGMMA.64x128x16.F32.BF16 R24, R152, gdesc[UR8].tnspB, R24, gsb0 ;  /* 0x41e0 */\n'
WAIT = '        /*3480*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;  /* 0x0000 */\n'


def ins(addr, text):
    return f'        /*{addr}*/                   {text} ;  /* 0x0000 */\n'


def count(text):
    return len(sass_hazards.hazards(text))


failures = []


def check(name, got, want):
    if got != want:
        failures.append(f'{name}: {got} hazard(s), expected {want}')


# A write to R153 between the wgmma and its wait: one hazard (FA3 with turns, 2026-12-05).
check('write before the wait', count(HEAD + HGMMA + ins('1fd0', 'FMNMX R153, R227, -INF , !PT') + WAIT), 1)
# The same write after the wait: none.
check('write after the wait', count(HEAD + HGMMA + WAIT + ins('3490', 'FMNMX R153, R227, -INF , !PT')), 0)
# Other registers, a predicated write to R155 (counted), a store reading R152 (not a write).
check('other registers', count(HEAD + HGMMA + ins('1fd0', 'FADD R156, R1, R2') + WAIT), 0)
check('predicated write', count(HEAD + HGMMA + ins('1fd0', '@!P1 MOV R155, R3') + WAIT), 1)
check('store of an A register', count(HEAD + HGMMA + ins('1fd0', 'STS [R4], R152') + WAIT), 0)
# A wgmma with A from shared memory (gdesc first) holds no registers.
smem = '        /*1c80*/                   HGMMA.64x128x16.F32.BF16 R88, gdesc[UR36], RZ, !UPT ;  /* 0x01e0 */\n'
check('A from shared memory', count(HEAD + smem + ins('1c90', 'FMNMX R88, R1, R2, !PT') + WAIT), 0)
# A new function forgets the previous one's wgmmas.
check('next function', count(HEAD + HGMMA + '\t\tFunction : kernel_b\n' + ins('0010', 'MOV R153, R1') + WAIT), 0)

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print('sass_hazards_test: ok')
