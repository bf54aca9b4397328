"""Lesson 7's messages: order-blindness, sinusoidal positions, RoPE, ALiBi, length and cross-attention (the notebook's
own tables, figure labels and code comments are in lesson7_text)."""

MESSAGES = {
    "hint_rope_in_place": {
        "ja": "q *= cos や q.mul_(cos) のようなインプレースの演算で、呼び出し元の q・k を書き換えていませんか。呼び出し元はそのあとも元の q・k を使い、学習では勾配を記録する入力をインプレースで書き換えることもできません。q * cos + rotate_half(q) * sin のように、新しいテンソルを作って返します。",
        "ko": "q *= cos나 q.mul_(cos) 같은 제자리 연산으로 호출한 쪽의 q, k를 바꾸지 않았나요? 호출한 쪽은 그 뒤에도 원래 q, k를 쓰고, 학습에서는 기울기를 기록하는 입력을 제자리에서 바꿀 수도 없습니다. q * cos + rotate_half(q) * sin처럼 새 텐서를 만들어 반환합니다.",
    },
    "bad_even": {
        "ja": "{name} は正の偶数にしてください（指定された値：{value!r}）。位置の角度は2つの次元の組ごとに決まるので、次元の数は偶数です。",
        "ko": "{name}의 값은 양의 짝수여야 합니다(받은 값: {value!r}). 위치의 각도는 두 차원의 쌍마다 정해지므로 차원 수는 짝수입니다.",
    },
    # ---------------------------------------------------------------- exercise 1
    "perm_not_float": {
        "ja": "permutation_error は数（Python の float）を返してください（いまは {kind}）。最後に float(...) で数に直します。",
        "ko": "permutation_error는 숫자(Python float)를 반환해야 합니다(지금은 {kind}). 마지막에 float(...)로 숫자로 바꾸세요.",
    },
    "hint_perm_float": {
        "ja": "(...).abs().max() の結果は 0 次元のテンソルで、Python の float ではありません。float(...) で包むか .item() で数に直してから返します（テンソルのままだと、計算グラフまでいっしょに返ることがあります）。",
        "ko": "(...).abs().max()의 결과는 0차원 텐서이지 Python float가 아닙니다. float(...)로 감싸거나 .item()으로 숫자로 바꾼 뒤 반환하세요(텐서 그대로 두면 계산 그래프까지 함께 반환될 수 있습니다).",
    },
    "perm_hidden_differs": {
        "ja": "{fn}について、permutation_error の値が正しくありません。",
        "ko": "{fn}에 대해 permutation_error의 값이 올바르지 않습니다.",
    },
    "perm_fn_attention": {
        "ja": "マスクのないアテンション（置換同変なので、正しい値はほぼ 0）",
        "ko": "마스크 없는 어텐션(순열 등변이므로 올바른 값은 거의 0)",
    },
    "perm_fn_positions": {
        "ja": "位置ごとのベクトルを足してから計算する、マスクのないアテンション（置換同変ではない）",
        "ko": "위치마다 벡터를 더한 뒤 계산하는, 마스크 없는 어텐션(순열 등변이 아님)",
    },
    "perm_fn_rowwise": {
        "ja": "トークンごとに計算する関数（置換同変なので、正しい値はほぼ 0）",
        "ko": "토큰마다 따로 계산하는 함수(순열 등변이므로 올바른 값은 거의 0)",
    },
    "perm_fn_causal": {
        "ja": "因果マスク付きのアテンション（置換同変ではない）",
        "ko": "인과 마스크가 있는 어텐션(순열 등변이 아님)",
    },
    "hint_perm_axis": {
        "ja": "並べ替えるのは系列の軸（軸 1）です。x[:, perm] と書きます。x[perm] はバッチの軸（軸 0）を並べ替えてしまいます。",
        "ko": "재배열하는 것은 시퀀스 축(축 1)입니다. x[:, perm]이라고 씁니다. x[perm]은 배치 축(축 0)을 재배열해 버립니다.",
    },
    "hint_perm_first_batch": {
        "ja": "バッチの要素 0 だけで差をとっています。[0] で取り出さずに、バッチのすべての要素を含めて .abs().max() をとります。",
        "ko": "배치의 0번 요소에서만 차이를 구했습니다. [0]으로 꺼내지 말고 배치의 모든 요소를 포함해 .abs().max()를 구합니다.",
    },
    "hint_perm_inverse": {
        "ja": "出力を逆の並べ替え（perm.argsort()）で並べ替えています。f(x[:, perm]) と比べるのは、入力と同じ perm で並べ替えた f(x)[:, perm] です。",
        "ko": "출력을 역순열(perm.argsort())로 재배열했습니다. f(x[:, perm])과 비교할 것은 입력과 같은 perm으로 재배열한 f(x)[:, perm]입니다.",
    },
    "hint_perm_output": {
        "ja": "f(x[:, perm]) を並べ替えていない f(x) と比べています。置換同変なら出力も同じように並べ替わるので、f(x)[:, perm] と比べます。",
        "ko": "f(x[:, perm])을 재배열하지 않은 f(x)와 비교했습니다. 순열 등변이라면 출력도 똑같이 재배열되므로 f(x)[:, perm]과 비교합니다.",
    },
    "hint_perm_input": {
        "ja": "入力を並べ替えずに f(x) を計算しています。片方は並べ替えた入力 x[:, perm] から計算した f(x[:, perm]) です。",
        "ko": "입력을 재배열하지 않고 f(x)를 계산했습니다. 한쪽은 재배열한 입력 x[:, perm]으로 계산한 f(x[:, perm])입니다.",
    },
    "hint_perm_abs": {
        "ja": "差の絶対値をとっていません。(a - b).abs().max() のように、abs() をとってから最大を求めます。",
        "ko": "차이의 절댓값을 구하지 않았습니다. (a - b).abs().max()처럼 abs()를 적용한 뒤 최댓값을 구합니다.",
    },
    "hint_perm_plus": {
        "ja": "2 つの出力の差ではなく和をとっています。f(x[:, perm]) - f(x)[:, perm] のように引き算してから .abs().max() をとります。",
        "ko": "두 출력의 차가 아니라 합을 구했습니다. f(x[:, perm]) - f(x)[:, perm]처럼 뺀 뒤 .abs().max()를 구합니다.",
    },
    "hint_perm_fn_once": {
        "ja": "片方で f を呼んでいません（入力 x[:, perm] を出力とそのまま比べています）。比べるのは 2 つの出力、f(x[:, perm]) と f(x)[:, perm] です。",
        "ko": "한쪽에서 f를 호출하지 않았습니다(입력 x[:, perm]을 출력과 그대로 비교했습니다). 비교할 것은 두 출력 f(x[:, perm])과 f(x)[:, perm]입니다.",
    },
    "hint_perm_mean": {
        "ja": "平均をとっています。求めるのは差の絶対値の最大（.max()）です。",
        "ko": "평균을 구했습니다. 구할 것은 차이의 절댓값 중 최댓값(.max())입니다.",
    },
    # ---------------------------------------------------------------- exercise 2
    "hint_pe_dtype": {
        "ja": "途中のどこかが float64 です（dtype=torch.float64 で作ったテンソルや、torch.float64 の位置や周波数から計算した pe）。float64 で計算するのはかまいませんが、最後に .float() で float32 に直して返します。",
        "ko": "계산 도중 어딘가가 float64입니다(dtype=torch.float64로 만든 텐서나 float64인 위치·주파수로 계산한 pe). float64로 계산해도 괜찮지만, 마지막에 .float()로 float32로 바꿔서 반환합니다.",
    },
    "hint_pe_halves": {
        "ja": "前半の列に sin、後半の列に cos を並べています。この演習では論文どおり、偶数の列 pe[:, 0::2] に sin、奇数の列 pe[:, 1::2] に cos を入れます。",
        "ko": "앞쪽 절반 열에 sin, 뒤쪽 절반 열에 cos을 놓았습니다. 이 연습 문제에서는 논문대로 짝수 열 pe[:, 0::2]에 sin, 홀수 열 pe[:, 1::2]에 cos을 넣습니다.",
    },
    "hint_pe_sin_only": {
        "ja": "偶数列にも奇数列にも sin を入れています。偶数列（0, 2, 4, …）が sin、奇数列（1, 3, 5, …）が cos です。",
        "ko": "짝수 열과 홀수 열에 모두 sin을 넣었습니다. 짝수 열(0, 2, 4, …)은 sin, 홀수 열(1, 3, 5, …)은 cos입니다.",
    },
    "hint_pe_swapped": {
        "ja": "sin と cos が入れ替わっています。偶数の列（0, 2, 4, …）が sin、奇数の列が cos です。",
        "ko": "sin과 cos이 뒤바뀌었습니다. 짝수 열(0, 2, 4, …)이 sin, 홀수 열이 cos입니다.",
    },
    "hint_pe_exponent": {
        "ja": "周波数の指数が i/E になっています。正しくは 2i/E です。torch.arange(0, E, 2) / E が 2i/E の並びになります（torch.arange(E // 2) / E では半分の速さで変わります）。",
        "ko": "주파수의 지수가 i/E로 되어 있습니다. 올바른 값은 2i/E입니다. torch.arange(0, E, 2) / E가 2i/E의 나열이 됩니다(torch.arange(E // 2) / E로는 절반 속도로 변합니다).",
    },
    "hint_pe_sign": {
        "ja": "ω_i = base^(−2i/E) の指数の負の符号が抜けています（base^(2i/E) を掛けると、周波数が大きくなりすぎます）。t を base^(2i/E) で割る、と考えても同じです。",
        "ko": "ω_i = base^(−2i/E)의 지수에서 음수 부호가 빠졌습니다(base^(2i/E)를 곱하면 주파수가 지나치게 커집니다). t를 base^(2i/E)로 나눈다고 생각해도 같습니다.",
    },
    "hint_pe_start": {
        "ja": "位置を 1 から数えています。最初のトークンの位置は 0 です（torch.arange(T)）。",
        "ko": "위치를 1부터 셌습니다. 첫 토큰의 위치는 0입니다(torch.arange(T)).",
    },
    "hint_pe_base": {
        "ja": "引数の base を使わずに 10000 で計算しています。ω_i = base^(−2i/E) の base は引数のものを使います。",
        "ko": "인자 base를 쓰지 않고 10000으로 계산했습니다. ω_i = base^(−2i/E)의 base는 인자로 받은 값을 씁니다.",
    },
    "hint_pe_device": {
        "ja": "device= で指定したデバイスに作られていません。torch.arange(..., device=device) や torch.zeros(..., device=device) のように、作るテンソルすべてに device を渡してください。",
        "ko": "device=로 지정한 장치에 만들어지지 않았습니다. torch.arange(..., device=device)나 torch.zeros(..., device=device)처럼 만드는 텐서 모두에 device를 넘기세요.",
    },
    "hint_pe_unbounded": {
        "ja": "−1 から 1 の範囲を超える値があります。sin と cos の値はこの範囲に収まるはずです。角度 position * omega を torch.sin や torch.cos に通していない列がないか、position * torch.sin(omega) のように sin の外で位置を掛けていないかを確かめてください。",
        "ko": "−1에서 1까지의 범위를 벗어난 값이 있습니다. sin과 cos의 값은 이 범위 안에 있어야 합니다. 각도 position * omega에 torch.sin이나 torch.cos을 적용하지 않은 열이 없는지, position * torch.sin(omega)처럼 sin 바깥에서 위치를 곱하지 않았는지 확인하세요.",
    },
    "hint_pe_sin_columns": {
        "ja": "奇数の列（cos）は合っていて、偶数の列 pe[:, 0::2] が違います。偶数の列は、cos と同じ角度 position * omega の sin です（torch.sin(position * omega)）。",
        "ko": "홀수 열(cos)은 맞고, 짝수 열 pe[:, 0::2]가 틀렸습니다. 짝수 열은 cos과 같은 각도 position * omega의 sin입니다(torch.sin(position * omega)).",
    },
    "hint_pe_cos_columns": {
        "ja": "偶数の列（sin）は合っていて、奇数の列 pe[:, 1::2] が違います。奇数の列は、sin と同じ角度 position * omega の cos です（torch.cos(position * omega)）。",
        "ko": "짝수 열(sin)은 맞고, 홀수 열 pe[:, 1::2]가 틀렸습니다. 홀수 열은 sin과 같은 각도 position * omega의 cos입니다(torch.cos(position * omega)).",
    },
    "hint_pe_angle": {
        "ja": "位置 0 の行（0, 1, 0, 1, …）は合っていますが、ほかの行が違います。角度 position * omega の omega が違うようです。ω_i = base^(−2i/E) は base ** (-torch.arange(0, E, 2) / E) です。E で割るところを掛けていないか（* E）、割る向きが逆になっていないか（E / …）、// で切り捨てていないか、arange の引数の順（0, E, 2）を確かめてください。",
        "ko": "위치 0의 행(0, 1, 0, 1, …)은 맞지만 나머지 행이 틀렸습니다. 각도 position * omega에서 omega가 잘못된 것 같습니다. ω_i = base^(−2i/E)는 base ** (-torch.arange(0, E, 2) / E)입니다. E로 나눌 곳에서 곱하지 않았는지(* E), 나누는 순서가 뒤바뀌지 않았는지(E / …), //로 소수점 아래를 버리지 않았는지, arange 인자의 순서(0, E, 2)가 맞는지 확인하세요.",
    },
    "hint_pe_float_call": {
        "ja": "torch.float は関数ではなく dtype（データ型）です。テンソルを float32 にするときは、テンソルのあとに .float() を付けます（torch.arange(T).float()）。",
        "ko": "torch.float은 함수가 아니라 dtype(자료형)입니다. 텐서를 float32로 바꿀 때는 텐서 뒤에 .float()를 붙입니다(torch.arange(T).float()).",
    },
    "hint_pe_half_table": {
        "ja": "返した表は (T, E/2) で、sin か cos の片方の列しかありません。pe = … と表ごと置き換えずに、pe[:, 0::2] と pe[:, 1::2] に代入して (T, E) の表を埋めます。",
        "ko": "반환한 표가 (T, E/2)라서 sin과 cos 중 한쪽 열만 있습니다. pe = …로 표 전체를 바꾸지 말고 pe[:, 0::2]와 pe[:, 1::2]에 대입해서 (T, E) 표를 채웁니다.",
    },
    "hint_pe_broadcast": {
        "ja": "position * omega がブロードキャストで (T, E/2) になっていません。position を [:, None] で (T, 1) に、omega を (E/2,) にすると、position * omega が (T, E/2) になり、pe[:, 0::2] と pe[:, 1::2] にちょうど入ります（pe[0::2] と書くと、列ではなく行を選んでしまいます）。",
        "ko": "position * omega가 브로드캐스트로 (T, E/2)가 되지 않습니다. position은 [:, None]을 붙여 (T, 1), omega는 (E/2,) 모양으로 만들면 position * omega가 (T, E/2)가 되어 pe[:, 0::2]와 pe[:, 1::2]에 꼭 맞게 들어갑니다(pe[0::2]라고 쓰면 열이 아니라 행을 고르게 됩니다).",
    },
    # ---------------------------------------------------------------- exercise 3
    "rope_not_pair": {
        "ja": "{name} は回した q と k の組 (q, k) を返してください。返ってきたのは {kind} です。",
        "ko": "{name}의 반환값은 돌린 q와 k의 쌍 (q, k)여야 합니다. 반환된 것: {kind}",
    },
    "hint_rope_interleaved": {
        "ja": "交互の並べ方（組 (0, 1), (2, 3), …）で回しています。この演習は Llama と同じ半分ずつの並べ方で、組は (i, i + D/2) です。前半と後半に分けて rotate_half を使います。",
        "ko": "번갈아 놓는 배치(쌍 (0, 1), (2, 3), …)로 돌렸습니다. 이 연습 문제는 Llama와 같은 반씩 나누는 배치이고, 쌍은 (i, i + D/2)입니다. 앞쪽 절반과 뒤쪽 절반으로 나눠 rotate_half를 씁니다.",
    },
    "hint_rope_direction": {
        "ja": "逆向きに回しています。rotate_half は (x1, x2) → (−x2, x1) で、torch.cat([-x2, x1], dim=-1) です（(x2, −x1) にすると角度の符号が反対になります）。",
        "ko": "반대 방향으로 돌렸습니다. rotate_half는 (x1, x2) → (−x2, x1)이고 torch.cat([-x2, x1], dim=-1)입니다((x2, −x1)로 하면 각도의 부호가 반대가 됩니다).",
    },
    "hint_rope_freq": {
        "ja": "周波数の指数が i/D になっています。θ_i = base^(−2i/D) なので、torch.arange(0, D, 2) / D を使います。",
        "ko": "주파수의 지수가 i/D로 되어 있습니다. θ_i = base^(−2i/D)이므로 torch.arange(0, D, 2) / D를 씁니다.",
    },
    "hint_rope_pairing": {
        "ja": "角度を repeat_interleave(2) で並べています。それは交互の並べ方の角度（θ0, θ0, θ1, θ1, …）です。半分ずつの並べ方では i 番目と i + D/2 番目が同じ角度なので、torch.cat([angles, angles], dim=-1) にします。",
        "ko": "각도를 repeat_interleave(2)로 늘어놓았습니다. 그것은 번갈아 놓는 배치의 각도(θ0, θ0, θ1, θ1, …)입니다. 반씩 나누는 배치에서는 i번째와 i + D/2번째가 같은 각도이므로 torch.cat([angles, angles], dim=-1)로 만듭니다.",
    },
    "hint_rope_positions": {
        "ja": "引数の positions を使わずに、0, 1, 2, … で回しています。角度は、位置と周波数 θ_i = base^(−2i/D) の積 positions[:, None] * θ です（KV キャッシュでは、位置は途中から始まります）。",
        "ko": "인자 positions를 쓰지 않고 0, 1, 2, …로 돌렸습니다. 각도는 위치와 주파수 θ_i = base^(−2i/D)의 곱 positions[:, None] * θ입니다(KV 캐시에서는 위치가 중간부터 시작합니다).",
    },
    "hint_rope_base": {
        "ja": "引数の base を使わずに 10000 で計算しています。Llama 3 の base は 500000 です。",
        "ko": "인자 base를 쓰지 않고 10000으로 계산했습니다. Llama 3의 base는 500000입니다.",
    },
    "hint_rope_unrotated": {
        "ja": "回していません（入力がそのまま返っています）。q だけでなく k も回して、両方を返してください。",
        "ko": "돌리지 않았습니다(입력이 그대로 반환되었습니다). q뿐만 아니라 k도 돌려서 둘 다 반환하세요.",
    },
    "hint_rope_cos_sin": {
        "ja": "cos と sin が入れ替わっています。q * cos + rotate_half(q) * sin の cos は emb.cos()、sin は emb.sin() です。",
        "ko": "cos과 sin이 뒤바뀌었습니다. q * cos + rotate_half(q) * sin에서 cos은 emb.cos(), sin은 emb.sin()입니다.",
    },
    "hint_rope_pair_order": {
        "ja": "回した q と k が入れ替わっています。返すのは (回した q, 回した k) の順です。",
        "ko": "돌린 q와 k가 뒤바뀌었습니다. 반환 순서는 (돌린 q, 돌린 k)입니다.",
    },
    "hint_rope_angles": {
        "ja": "各組 (i, i + D/2) は回っていますが、角度が違います。角度は位置と周波数の積 positions[:, None] * θ で、θ_i = base^(−2i/D) は base ** (-torch.arange(0, D, 2) / D) です。D で割るところが * D や // D になっていないか、位置を周波数で割っていないかを確かめてください。",
        "ko": "각 쌍 (i, i + D/2)을 돌리기는 했지만 각도가 틀렸습니다. 각도는 위치와 주파수의 곱 positions[:, None] * θ이고, 주파수 θ_i = base^(−2i/D)는 코드로 base ** (-torch.arange(0, D, 2) / D)입니다. D로 나눠야 할 곳을 * D나 // D로 쓰지 않았는지, 위치를 주파수로 나누지 않았는지 확인하세요.",
    },
    "hint_rope_not_rotation": {
        "ja": "回転になっていません。回転なら各組 (x[i], x[i + D/2]) の二乗和は変わりませんが、あなたの結果では変わっています。q * cos + rotate_half(q) * sin のとおり、q には emb.cos() を、rotate_half(q) には emb.sin() を掛けて足します。rotate_half(x) は、前半を x1、後半を x2 として torch.cat([-x2, x1], dim=-1) です。",
        "ko": "회전이 되지 않았습니다. 회전이라면 각 쌍 (x[i], x[i + D/2])의 제곱합이 변하지 않아야 하는데, 여러분의 결과에서는 변했습니다. 식은 q * cos + rotate_half(q) * sin이고 cos = emb.cos(), sin = emb.sin()입니다. q에는 cos을, rotate_half(q)에는 sin을 곱해 더합니다. rotate_half(x)는 x1 = x[..., :D // 2], x2 = x[..., D // 2:]일 때 torch.cat([-x2, x1], dim=-1)입니다.",
    },
    "hint_rope_to": {
        "ja": ".to に渡す引数の順番が逆になっていませんか。位置で渡すときはデバイスが先、データ型があとで、positions.to(q.device, torch.float64) と書きます（positions.to(device=q.device, dtype=torch.float64) のように名前で渡せば、順番は問いません）。",
        "ko": ".to의 인자 순서가 바뀐 것 같습니다. 위치 인자로 넘길 때는 positions.to(q.device, torch.float64)처럼 장치를 먼저, 자료형을 나중에 넘기세요(positions.to(device=q.device, dtype=torch.float64)처럼 키워드 인자로 넘기면 순서와 상관없습니다).",
    },
    "hint_rope_half_index": {
        "ja": "スライスの端は整数です。D / 2 は float になるので、前半と後半は x[..., :D // 2] と x[..., D // 2:] のように // で分けます。",
        "ko": "슬라이스의 경계는 정수여야 합니다. D / 2는 float가 되므로 x[..., :D // 2]와 x[..., D // 2:]처럼 D // 2로 앞쪽 절반과 뒤쪽 절반을 자르세요.",
    },
    "hint_rope_dtype": {
        "ja": "float64 で計算した cos と sin を掛けると、結果も float64 になります。cos と sin を .to(q.dtype) で q と同じデータ型に直してから掛けてください。",
        "ko": "float64로 계산한 cos과 sin을 곱하면 결과도 float64가 됩니다. cos과 sin을 .to(q.dtype)로 q와 같은 자료형으로 바꾼 뒤 곱하세요.",
    },
    "hint_rope_device": {
        "ja": "cos と sin が q と別のデバイスに作られています。torch.arange(..., device=q.device) のように q のデバイスに作り、positions も .to(q.device) してください。そうしないと、q と k が GPU にあるときにエラーになります。",
        "ko": "cos과 sin이 q와 다른 장치에 만들어졌습니다. torch.arange(..., device=q.device)처럼 q의 장치에 만들고 positions도 .to(q.device)로 옮기세요. 그렇지 않으면 q와 k가 GPU에 있을 때 오류가 납니다.",
    },
    # ---------------------------------------------------------------- exercise 4
    "hint_layout_inverse": {
        "ja": "逆向きの変換（半分ずつから交互へ）になっています。view(H, D // 2, 2, E).transpose(1, 2) で、各ヘッドの偶数番目の行を前半に、奇数番目の行を後半に集めます。",
        "ko": "반대 방향의 변환(반씩 나누는 배치에서 번갈아 놓는 배치로)이 되었습니다. view(H, D // 2, 2, E).transpose(1, 2)로 각 헤드의 짝수 번째 행을 앞쪽 절반에, 홀수 번째 행을 뒤쪽 절반에 모읍니다.",
    },
    "hint_layout_heads": {
        "ja": "ヘッドに分けずに、行全体を1つのヘッドとして並べ替えています。並べ替えは各ヘッドの D 行の中で行います（view(H, D // 2, 2, E)）。",
        "ko": "헤드로 나누지 않고 행 전체를 헤드 하나로 보고 재배열했습니다. 재배열은 각 헤드의 D행 안에서 합니다(view(H, D // 2, 2, E)).",
    },
    "hint_layout_columns": {
        "ja": "列を並べ替えているようです（view の大きさを列の数 E から求めています）。weight は nn.Linear の重みなので形状は (出力, 入力) = (H·D, E) で、並べ替えるのは行（軸 0）です。D は weight.size(0) // n_head です。",
        "ko": "열을 재배열한 것 같습니다(view의 크기를 열의 수 E에서 구했습니다). weight는 nn.Linear의 가중치이므로 모양이 (출력, 입력) = (H·D, E)이고, 재배열하는 것은 행(축 0)입니다. D는 weight.size(0) // n_head입니다.",
    },
    "hint_layout_reshape": {
        "ja": "並べ替えたあと、reshape(rows, E) で (H·D, E) の 2 次元に戻してください。view(H, D // 2, 2, E).transpose(1, 2) の結果は 4 次元 (H, 2, D/2, E) のままです。",
        "ko": "재배열한 뒤 reshape(rows, E)로 (H·D, E) 2차원으로 되돌리세요. view(H, D // 2, 2, E).transpose(1, 2)의 결과는 4차원 (H, 2, D/2, E) 그대로입니다.",
    },
    "hint_layout_order": {
        "ja": "重み行列の行は入れ替わっていますが、順番が違います。各ヘッドの D 行を (D/2, 2) に分け（view(H, D // 2, 2, E)）、その 2 つの軸を入れ替えます（transpose(1, 2)）。ヘッドの軸（軸 0）と列の軸（E）は動かしません。",
        "ko": "가중치 행렬의 행은 재배열되었지만 순서가 다릅니다. 각 헤드의 D행을 (D/2, 2)로 나누고(view(H, D // 2, 2, E)) 그 두 축을 서로 바꿉니다(transpose(1, 2)). 헤드 축(축 0)과 열 축(E)은 움직이지 않습니다.",
    },
    "hint_layout_mixed": {
        "ja": "行の中の値まで入れ替わっています（元の重み行列のどの行とも違う行があります）。並べ替えるのは行だけです。view の最後の軸は列の数 E のままにし、transpose は行から作った 2 つの軸（軸 1 と 2）で行います。",
        "ko": "행 안의 값까지 뒤섞였습니다(원래 가중치 행렬의 어느 행과도 다른 행이 있습니다). 재배열하는 것은 행뿐입니다. view의 마지막 축은 열의 수 E로 두고, transpose는 행에서 만든 두 축(축 1과 2)끼리 합니다.",
    },
    "hint_layout_unchanged": {
        "ja": "重み行列が変わっていません。形状は同じままでも、行の順番は並べ替える必要があります。",
        "ko": "가중치 행렬이 바뀌지 않았습니다. 모양은 그대로여도 행의 순서는 재배열해야 합니다.",
    },
    # ---------------------------------------------------------------- exercise 5
    "hint_relative_sign": {
        "ja": "回す向きが逆です。R_mᵀ R_n = R_(n−m) なので、キーを offset = n − m の位置まで回します。−offset で回したり、キーのかわりにクエリを回したりすると、offset の向きが反対の値（q^T R_(m−n) k）になります。",
        "ko": "돌리는 방향이 반대입니다. R_mᵀ R_n = R_(n−m)이므로 키를 offset = n − m 위치만큼 돌립니다. −offset으로 돌리거나 키 대신 쿼리를 돌리면 offset의 방향이 반대인 값(q^T R_(m−n) k)이 됩니다.",
    },
    "hint_relative_shape": {
        "ja": "rope は位置の軸がある (…, T, D) の形を受け取って返します。k[..., None, :] で位置の軸を足して回し、回したキーの [..., 0, :] でその軸を外します。クエリ q は回さず、そのまま使います。",
        "ko": "rope는 위치 축이 있는 (…, T, D) 모양을 받고 돌려줍니다. k[..., None, :]로 위치 축을 더해 돌리고, 돌린 키에서 [..., 0, :]로 그 축을 없앱니다. 쿼리 q는 돌리지 않고 그대로 씁니다.",
    },
    "hint_relative_last_axis": {
        "ja": "内積は最後の軸でとります（sum(dim=-1)）。q と k は (…, D) で、(D,) の 1 本のベクトルのことも、(B, T, D) のように軸がもっと多いこともあります。dim=1 のように軸を前から数えると、2 次元 (N, D) のときしか合いません。",
        "ko": "내적은 마지막 축으로 구합니다(sum(dim=-1)). q와 k는 (…, D) 모양이라서 (D,) 벡터 하나일 수도 있고 (B, T, D)처럼 축이 더 많을 수도 있습니다. dim=1처럼 축을 앞에서부터 세면 2차원 (N, D)일 때만 맞습니다.",
    },
    "hint_relative_unrotated": {
        "ja": "回していない q · k と同じ値です。q と k を同じ角度で回すと内積は変わりません。回すのはキーだけです。",
        "ko": "돌리지 않은 q · k와 같은 값입니다. q와 k를 같은 각도로 돌리면 내적은 바뀌지 않습니다. 돌리는 것은 키뿐입니다.",
    },
    "hint_relative_negative": {
        "ja": "offset は負にもなります。torch.arange(offset) は offset < 0 のときエラーになります。回す位置は torch.tensor([offset]) のように、offset 1つだけを入れて作ります。",
        "ko": "offset은 음수일 수도 있습니다. torch.arange(offset)은 offset < 0일 때 오류가 납니다. 돌릴 위치는 torch.tensor([offset])처럼 offset 하나만 넣어 만듭니다.",
    },
    "hint_relative_rope_arg": {
        "ja": "引数の rope ではない関数（base 10000 の RoPE）で回しているようです。引数で渡された rope を使ってください。",
        "ko": "인자 rope가 아닌 함수(base 10000인 RoPE)로 돌린 것 같습니다. 인자로 받은 rope를 쓰세요.",
    },
    # ---------------------------------------------------------------- exercise 6
    "hint_rope_cache_restart": {
        "ja": "新しいトークンの位置を毎回 0 から数えています。位置は torch.arange(T_past, T_past + T_new) です。T_past はキャッシュにあるトークンの数（cache[0].size(2)）です。",
        "ko": "새 토큰의 위치를 매번 0부터 셌습니다. 위치는 torch.arange(T_past, T_past + T_new)입니다. T_past는 캐시에 있는 토큰 수(cache[0].size(2))입니다.",
    },
    "hint_rope_cache_twice": {
        "ja": "キャッシュにあるキーをもう一度回しています。キャッシュのキーは入れたときに回してあるので、回すのは新しい q と k だけです。回してからキャッシュにつなげます。",
        "ko": "캐시에 있는 키를 한 번 더 돌렸습니다. 캐시의 키는 넣을 때 이미 돌렸으므로 돌리는 것은 새 q와 k뿐입니다. 돌린 다음 캐시에 이어 붙입니다.",
    },
    "hint_rope_cache_no_rope": {
        "ja": "回していません。rope(q, k, positions) で新しいクエリとキーを回してから、スコアを計算します。",
        "ko": "돌리지 않았습니다. rope(q, k, positions)로 새 쿼리와 키를 돌린 다음 점수를 계산합니다.",
    },
    "hint_rope_cache_q_not_rotated": {
        "ja": "キーは回していますが、クエリを回していません。q, k = rope(q, k, positions) のように、返ってきたクエリも使います。",
        "ko": "키는 돌렸지만 쿼리를 돌리지 않았습니다. q, k = rope(q, k, positions)처럼 반환된 쿼리도 써야 합니다.",
    },
    "hint_rope_cache_no_proj": {
        "ja": "最後に attn.c_proj を通していません。ヘッドをつなげて (B, T_new, E) に戻したら、attn.c_proj に通してから返します。",
        "ko": "마지막에 attn.c_proj를 거치지 않았습니다. 헤드를 이어 붙여 (B, T_new, E)로 되돌린 뒤 attn.c_proj를 거쳐 반환합니다.",
    },
    "hint_rope_cache_concat": {
        "ja": "キャッシュがあるときの呼び出しで形状が合いません。キーだけでなくバリューも、古いキャッシュと torch.cat([cache[0], k], dim=2)、torch.cat([cache[1], v], dim=2) のように系列の軸でつなげてから、重みとバリューの積を計算します。",
        "ko": "캐시가 있을 때의 호출에서 모양이 맞지 않습니다. 키뿐 아니라 밸류도 torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)처럼 이전 캐시와 시퀀스 축으로 이어 붙인 다음, 가중치와 밸류를 곱합니다.",
    },
    "hint_rope_cache_shapes": {
        "ja": "キャッシュのない最初の呼び出しで、形状が合っていません。q, k, v は、c_attn の出力を split(E, dim=2) で分けたそれぞれを .view(B, T_new, H, D).transpose(1, 2) で (B, H, T_new, D) にしたものです。スコアは (B, H, T_new, T_past + T_new)、マスク keep は (T_new, T_past + T_new) です。",
        "ko": "캐시가 없는 첫 호출에서 모양이 맞지 않습니다. attn.c_attn(x_new).split(E, dim=2)로 나눈 q, k, v는 각각 .view(B, T_new, H, D).transpose(1, 2)를 거쳐 (B, H, T_new, D)가 됩니다. 점수는 (B, H, T_new, T_past + T_new), 마스크 keep은 (T_new, T_past + T_new) 모양입니다.",
    },
    "hint_rope_cache_none": {
        "ja": "cache が None のときの扱いを確かめてください。最初の呼び出しでは cache は None なので、cache[0] や torch.cat([cache[0], k], dim=2) は使えません。キャッシュにあるトークンの数 T_past は T_past = 0 if cache is None else cache[0].size(2) で求め、古いキャッシュとつなげるのは if cache is not None: の中だけにします。",
        "ko": "캐시를 다루는 부분을 확인하세요. 첫 호출에서는 cache가 None입니다. T_past는 캐시에 있는 토큰 수(정수)로, T_past = 0 if cache is None else cache[0].size(2)로 구합니다. 이전 캐시와 이어 붙이는 일은 if cache is not None: 안에서만 합니다.",
    },
    "hint_rope_cache_unrotated": {
        "ja": "キャッシュに、回す前のキーを入れています。本文のとおり、キャッシュには回したあとのキーを入れます。回す前のキーを入れて毎回キャッシュ全体を回し直すと、出力は同じでも、1ステップごとに T_past 個のキーを回す手間がかかります。",
        "ko": "캐시에 돌리기 전의 키를 넣었습니다. 본문대로 캐시에는 돌린 뒤의 키를 넣습니다. 돌리기 전의 키를 넣고 매번 캐시 전체를 다시 돌리면, 출력은 같아도 스텝마다 T_past개의 키를 다시 돌리는 계산이 더 듭니다.",
    },
    "hint_rope_cache_qk_swapped": {
        "ja": "クエリとキーが入れ替わっています。attn.c_attn(x_new) の出力の最後の軸は、最初の E 個が q、次の E 個が k、最後の E 個が v です（q, k, v = (…).split(E, dim=2) の順）。rope も (q, k) の順に受け取って返すので、q, k = rope(q, k, positions) と書きます。",
        "ko": "쿼리와 키가 뒤바뀌었습니다. c_attn의 출력은 처음 E개가 Q, 다음 E개가 K, 마지막 E개가 V입니다(q, k, v = …split(E, dim=2)). rope도 (q, k) 순서로 받고 반환하므로 q, k = rope(q, k, positions)로 씁니다.",
    },
    "hint_rope_cache_merge": {
        "ja": "出力には正しい値がすべて入っていますが、並び順が違います。ヘッドごとの出力 (B, H, T_new, D) を transpose(1, 2) で (B, T_new, H, D) にしてから .contiguous().view(B, T_new, E) でヘッドをつなげます。transpose を省いたり別の軸を入れ替えたりすると、値が別の場所に入ります。",
        "ko": "출력에 들어 있는 값은 맞지만 놓인 순서가 다릅니다. 헤드별 출력 (B, H, T_new, D)를 transpose(1, 2)로 (B, T_new, H, D)로 바꾼 뒤 .contiguous().view(B, T_new, E)로 헤드를 이어 붙입니다. transpose를 빠뜨리거나 엉뚱한 축끼리 바꾸면 값이 다른 자리에 들어갑니다.",
    },
    "hint_rope_cache_return_order": {
        "ja": "返す順番が逆です。attend_rope_with_cache は (出力, 新しいキャッシュ) の順に返すので、return attn.c_proj(y), (k, v) と書きます。",
        "ko": "반환 순서가 반대입니다. attend_rope_with_cache는 (출력, 캐시) 순서로 반환합니다(return attn.c_proj(y), (k, v)).",
    },
    # ---------------------------------------------------------------- exercise 7
    "hint_alibi_sign": {
        "ja": "符号が逆です。バイアスは −m_h · (i − j) で、遠いキーほど小さく（絶対値の大きい負の値に）なります。",
        "ko": "부호가 반대입니다. 편향은 −m_h · (i − j)이고, 먼 키일수록 작아집니다(절댓값이 큰 음수가 됩니다).",
    },
    "hint_alibi_reversed": {
        "ja": "傾きの順番が逆です。ヘッド 0 がいちばん大きい傾き 2^(−8/n) で、あとのヘッドほど小さくなります。",
        "ko": "기울기의 순서가 반대입니다. 헤드 0이 가장 큰 기울기 2^(−8/n)이고, 뒤의 헤드일수록 작아집니다.",
    },
    "hint_alibi_start": {
        "ja": "傾きの指数を h から始めています（ヘッド 0 の傾きが 1 になります）。m_h = 2^(−8(h+1)/n) で、指数は h + 1 です。",
        "ko": "기울기의 지수를 h부터 시작했습니다(헤드 0의 기울기가 1이 됩니다). m_h = 2^(−8(h+1)/n)이고, 지수는 h + 1입니다.",
    },
    "hint_alibi_ratio": {
        "ja": "傾きを 2^(−(h+1)) にしています。公比は 2^(−8/n) で、1/2 になるのは n = 8（H が 8〜15）のときだけです。",
        "ko": "기울기를 2^(−(h+1))로 했습니다. 공비는 2^(−8/n)이고, 1/2이 되는 것은 n = 8(H가 8~15)일 때뿐입니다.",
    },
    "hint_alibi_power_of_two": {
        "ja": "H が 2 のべき乗でないのに、2^(−8(h+1)/H) をそのまま使っています。H 以下で最大の 2 のべき乗 n で n 個を作り、残りを 2^(−8(j+1)/(2n)) の j = 0, 2, 4, … から取ります。",
        "ko": "H가 2의 거듭제곱이 아닌데 2^(−8(h+1)/H)를 그대로 썼습니다. H 이하에서 가장 큰 2의 거듭제곱 n으로 n개를 만들고, 나머지는 2^(−8(j+1)/(2n))의 j = 0, 2, 4, …에서 가져옵니다.",
    },
    "hint_alibi_odd": {
        "ja": "残りの H − n 個の傾きを j = 1, 3, 5, … から取っています（それは最初の n 個と同じ値です）。2^(−8(j+1)/(2n)) の j = 0, 2, 4, … から取ります。",
        "ko": "나머지 H − n개의 기울기를 j = 1, 3, 5, …에서 가져왔습니다(그 값은 처음 n개와 같습니다). 2^(−8(j+1)/(2n))의 j = 0, 2, 4, …에서 가져옵니다.",
    },
    "hint_alibi_floor_div": {
        "ja": "傾きの指数の計算に // を使っていませんか。// は割った結果を小さいほうの整数に切り捨てるので、指数 −8(h+1)/n や −8(j+1)/(2n) が整数にならないと傾きが変わります（−0.5 が −1 になります）。H = 4、6、8 では指数が整数になるので気づきませんが、H = 12 や 20 では違います。2 ** (-8 * (h + 1) / n) のように / で割ってください。",
        "ko": "기울기의 지수를 //로 계산했습니다. //는 결과를 더 작은 정수로 내림하는 나눗셈이라서, 지수 −8(h+1)/n이나 −8(j+1)/(2n)이 정수가 아니면 기울기가 달라집니다(−0.5가 −1이 됩니다). H = 4나 6에서는 지수가 모두 정수라 드러나지 않지만 H = 12나 20에서는 다릅니다. 2 ** (-8 * (h + 1) / n)처럼 /로 나누세요.",
    },
    "hint_alibi_slopes_first": {
        "ja": "バイアスが −m_h · (i − j) の式になっている点は合っていますが、最初の n 個の傾きが違います（n は H 以下で最大の 2 のべき乗）。傾きは m_h = 2^(−8(h+1)/n)（h = 0, 1, …, n − 1）で、2 ** (-8 * (h + 1) / n) と書きます。ヘッド 0 の傾きは 2^(−8/n) で、ヘッドが1つ進むごとに 2^(−8/n) 倍になります。",
        "ko": "편향의 꼴 −m_h · (i − j)는 맞지만 처음 n개의 기울기가 틀렸습니다(n은 H 이하에서 가장 큰 2의 거듭제곱). 기울기는 m_h = 2^(−8(h+1)/n), h = 0, 1, …, n − 1이고 2 ** (-8 * (h + 1) / n)으로 씁니다. 헤드 0이 2^(−8/n)이고, 헤드가 하나 뒤로 갈 때마다 2^(−8/n)이 한 번 더 곱해집니다.",
    },
    "hint_alibi_slopes_rest": {
        "ja": "最初の n 個の傾きは合っていますが、残りの H − n 個が違います。残りは 2n 個ぶんの式 2^(−8(j+1)/(2n)) の j = 0, 2, 4, … 番目で、2 ** (-8 * (j + 1) / (2 * n)) for j in range(0, 2 * (n_head - n), 2) と書きます。",
        "ko": "처음 n개의 기울기는 맞지만 나머지 H − n개가 틀렸습니다. 나머지는 2n개짜리 식 2^(−8(j+1)/(2n))의 j = 0, 2, 4, …번째이고, 2 ** (-8 * (j + 1) / (2 * n)) for j in range(0, 2 * (n_head - n), 2)로 씁니다.",
    },
    "hint_alibi_distance": {
        "ja": "バイアスが、傾きに距離を掛けた −m_h · (i − j) になっていません。距離 i − j は、i = torch.arange(T) として i[:, None] - i[None, :] で作ります。対角線上（クエリとキーが同じ位置）では 0 で、キーが1つ前になるごとに 1 増えます。これに傾きを掛けます（割るのではありません）。",
        "ko": "편향이 기울기에 거리를 곱한 −m_h · (i − j)가 아닙니다. 거리는 i = torch.arange(T)로 두고 i[:, None] - i[None, :]로 구합니다. 대각선(i = j)에서 0이고, 키가 한 칸 앞으로 갈 때마다 1씩 커집니다. 여기에 기울기를 곱합니다(나누지 않습니다).",
    },
    "hint_alibi_count": {
        "ja": "傾きが H 個になっていません。H 以下で最大の 2 のべき乗 n について最初の n 個を作り、残りの H − n 個を range(0, 2 * (n_head - n), 2) の j から作ると、合わせて H 個です（H = 6 なら n = 4 で、残りは j = 0, 2 の 2 個）。H が 2 のべき乗なら H − n = 0 で、残りはありません。",
        "ko": "기울기가 H개가 아닙니다. H 이하에서 가장 큰 2의 거듭제곱 n에 대해 처음 n개를 만들고, 나머지 H − n개를 range(0, 2 * (n_head - n), 2)의 j로 만들면 모두 H개입니다(H = 6이면 n = 4이고, 나머지는 j = 0, 2의 2개). H가 2의 거듭제곱이면 H − n = 0이라 나머지는 없습니다.",
    },
    "hint_alibi_largest_power": {
        "ja": "n が H 以下で最大の 2 のべき乗になっていません。math.log2 は float を返すので、2 ** math.log2(n_head) はほぼ H そのもの（しかも float）です。n = 2 ** math.floor(math.log2(n_head)) のように、指数を math.floor で整数に切り捨ててから 2 のべき乗をとります（H = 6 なら n = 4）。",
        "ko": "n이 H 이하에서 가장 큰 2의 거듭제곱이 아닙니다. math.log2는 float를 반환하므로 2 ** math.log2(n_head)는 H를 float로 되돌린 값(H = 6이면 6.0 안팎)일 뿐입니다. n = 2 ** math.floor(math.log2(n_head))처럼 지수를 math.floor로 내림해 정수로 만든 뒤 2의 거듭제곱을 구하세요(H = 6이면 n = 4).",
    },
    "hint_alibi_broadcast": {
        "ja": "傾きと距離を掛けた結果が (H, T, T) になっていません。傾き m (H,) は m[:, None, None] で (H, 1, 1) に、距離は i[:, None] - i[None, :] で (T, T) にすると、ブロードキャストで積が (H, T, T) になります。",
        "ko": "기울기와 거리를 곱한 결과가 브로드캐스트로 (H, T, T)가 되지 않습니다. 기울기 m은 m[:, None, None]으로 (H, 1, 1)로, 거리는 i[:, None] - i[None, :]로 (T, T)로 만들면 둘을 곱한 결과가 (H, T, T)가 됩니다.",
    },
    "alibi_dtype": {
        "ja": "バイアスのデータ型が float32 ではありません（いまは {got}）。",
        "ko": "편향의 자료형이 float32가 아닙니다(지금은 {got}).",
    },
    "hint_alibi_dtype": {
        "ja": "傾きか距離のどちらかが float64 です（dtype=torch.float64 を指定したり、.double() にしたりすると、掛けた結果も float64 になります）。torch.tensor(slopes) は float32 で作られます。float64 で計算したなら、最後に .float() で float32 に直します。",
        "ko": "기울기나 거리 중 하나가 float64입니다(dtype=torch.float64를 지정하거나 .double()로 바꾸면 곱한 결과도 float64가 됩니다). torch.tensor(slopes)는 float32로 만들어집니다. float64로 계산했다면 마지막에 .float()로 float32로 바꿉니다.",
    },
    "hint_alibi_device": {
        "ja": "device= で指定したデバイスに作られていません。傾きのテンソルと torch.arange の両方に device=device を渡してください。",
        "ko": "device=로 지정한 장치에 만들어지지 않았습니다. 기울기 텐서와 torch.arange 모두에 device=device를 넘기세요.",
    },
    # ---------------------------------------------------------------- exercise 0
    "buffer_open_differs": {
        "ja": "バッファ causal を全部 True にしても、出力がマスクなしのアテンションの値になりません（最大誤差 {err:.3g}）。",
        "ko": "버퍼 causal을 모두 True로 바꿔도 출력이 마스크 없는 어텐션의 값이 되지 않습니다(최대 오차 {err:.3g}).",
    },
    "hint_mask_not_from_buffer": {
        "ja": "バッファを全部 True にしても、出力は因果マスクをかけたときの値のままです。forward がバッファ self.causal ではなく、その場で作ったマスク（torch.ones(T, T).tril() など）を使っています。マスクは self.causal[:T, :T] から作ってください。この回の第1節は、このバッファを全部 True にしてマスクを外します。",
        "ko": "버퍼를 모두 True로 바꿔도 출력은 인과 마스크를 적용했을 때의 값 그대로입니다. forward가 버퍼 self.causal이 아니라 그 자리에서 만든 마스크(torch.ones(T, T).tril() 등)를 쓰고 있습니다. 마스크는 self.causal[:T, :T]로 만드세요. 이번 강의 1절에서는 이 버퍼를 모두 True로 바꿔 마스크를 없앱니다.",
    },
    # ---------------------------------------------------------------- exercise 8
    "hint_cross_q_from_memory": {
        "ja": "出力の系列長はクエリの系列 x の長さ T_q です。q を memory から作っていませんか。q は q_proj(x)、k と v は k_proj(memory)、v_proj(memory) です。",
        "ko": "출력의 시퀀스 길이는 쿼리 시퀀스 x의 길이 T_q입니다. q를 memory에서 만든 것 같습니다. q는 q_proj(x), k와 v는 k_proj(memory), v_proj(memory)입니다.",
    },
    "hint_cross_kv_from_x": {
        "ja": "重みの最後の軸はキーの数 T_k です。k と v を x から作っていませんか（それではセルフアテンションです）。k と v は memory から作ります。",
        "ko": "가중치의 마지막 축은 키의 개수 T_k입니다. k와 v를 x에서 만든 것 같습니다. 그렇게 하면 셀프 어텐션이 됩니다. k와 v는 memory에서 만듭니다.",
    },
    "hint_cross_heads_averaged": {
        "ja": "重みがヘッドごとになっていません（形状が (B, T_q, T_k) です）。ヘッドで平均したりヘッドの軸を落としたりせず、ソフトマックスのあとの重みを (B, H, T_q, T_k) のまま返します（nn.MultiheadAttention の average_attn_weights=False と同じ形です）。",
        "ko": "가중치가 헤드별로 되어 있지 않습니다(모양이 (B, T_q, T_k)입니다). 헤드에 대해 평균을 내거나 헤드 축을 없애지 말고, 소프트맥스 뒤의 가중치를 (B, H, T_q, T_k) 그대로 반환하세요(nn.MultiheadAttention의 average_attn_weights=False와 같은 모양입니다).",
    },
    "hint_cross_lengths": {
        "ja": "クエリの数 T_q とキーの数 T_k が違うところで形状が合っていません。q は x から、k と v は memory から作り（view(B, T_k, H, D)）、スコアは (B, H, T_q, T_k)、パディングマスクは [:, None, None, :] で (B, 1, 1, T_k) にします。",
        "ko": "쿼리 수 T_q와 키 수 T_k가 다른 곳에서 모양이 맞지 않습니다. q는 x에서, k와 v는 memory에서 만들고(view(B, T_k, H, D)), 점수는 (B, H, T_q, T_k), 패딩 마스크는 [:, None, None, :]로 (B, 1, 1, T_k)로 만듭니다.",
    },
    "hint_cross_causal": {
        "ja": "因果マスクがかかっています。クロスアテンションのキーは原文（エンコーダの出力）で、全部そろっているので、どのクエリも全部のキーを見てかまいません。かけるのはパディングマスクだけです。",
        "ko": "인과 마스크가 적용되었습니다. 크로스 어텐션의 키는 원문(인코더의 출력)이고 이미 다 갖춰져 있으므로, 어느 쿼리든 모든 키를 봐도 됩니다. 적용할 것은 패딩 마스크뿐입니다.",
    },
    "hint_cross_causal_lower_right": {
        "ja": "右下に合わせた因果マスク（tril(diagonal=T_k − T_q)、第6回の KV キャッシュと同じ形）がかかっています。クロスアテンションのキーは原文（エンコーダの出力）で、全部そろっているので、どのクエリも全部のキーを見てかまいません。かけるのはパディングマスクだけです。",
        "ko": "오른쪽 아래에 맞춘 인과 마스크(tril(diagonal=T_k − T_q), 6강의 KV 캐시와 같은 모양)가 적용되었습니다. 크로스 어텐션의 키는 원문(인코더의 출력)이고 이미 다 갖춰져 있으므로, 어느 쿼리든 모든 키를 봐도 됩니다. 적용할 것은 패딩 마스크뿐입니다.",
    },
    "hint_cross_mask_inverted": {
        "ja": "マスクが逆です。key_padding_mask は True がパディング（nn.MultiheadAttention と同じ約束）なので、masked_fill(key_padding_mask[:, None, None, :], -inf) です。~ は付けません。",
        "ko": "마스크가 반대입니다. key_padding_mask는 True가 패딩이므로(nn.MultiheadAttention과 같은 약속) masked_fill(key_padding_mask[:, None, None, :], -inf)입니다. ~를 붙이지 않습니다.",
    },
    "hint_cross_mask_zero": {
        "ja": "パディングの位置のスコアを 0 にしています。0 は exp(0) = 1 で、重みが残ります。float(\"-inf\") にしてください。",
        "ko": "패딩 위치의 점수를 0으로 만들었습니다. 0은 exp(0) = 1이라서 가중치가 남습니다. float(\"-inf\")로 만드세요.",
    },
    "hint_cross_no_mask": {
        "ja": "key_padding_mask を使っていません。True の位置（パディングのキー）のスコアを −∞ にしてからソフトマックスをとります。",
        "ko": "key_padding_mask를 쓰지 않았습니다. True인 위치(패딩 키)의 점수를 −∞로 만든 다음 소프트맥스를 적용합니다.",
    },
    "hint_cross_scale_e": {
        "ja": "√E で割っています。割るのはヘッドの次元 D = E / H の平方根 √D です。",
        "ko": "√E로 나눴습니다. 나눠야 하는 값은 헤드 차원 D = E / H의 제곱근 √D입니다.",
    },
    "hint_cross_out_proj": {
        "ja": "重みは正しく、出力だけが違います。ヘッドをつなぎ直した (B, T_q, E) を、そのまま返していませんか。最後に self.out_proj を通します（return self.out_proj(y), weights）。",
        "ko": "가중치는 맞고 출력만 다릅니다. 헤드를 다시 이어 붙인 (B, T_q, E)를 그대로 반환한 것 같습니다. 마지막에 self.out_proj를 거쳐야 합니다(return self.out_proj(y), weights).",
    },
    "hint_cross_in_proj": {
        "ja": "射影のどれか1つを通さずに、x や memory をそのまま使っていませんか。q = self.q_proj(x)、k = self.k_proj(memory)、v = self.v_proj(memory) のように、それぞれ射影を通してからヘッドに分けます。",
        "ko": "투영 하나를 빠뜨린 것 같습니다. q = self.q_proj(x), k = self.k_proj(memory), v = self.v_proj(memory)처럼 q, k, v는 모두 각자의 투영을 거친 뒤 헤드로 나눕니다.",
    },
    "hint_cross_view": {
        "ja": "要素が連続して並んでいない（contiguous でない）テンソルに view を使っています。ヘッドに分けるときは view(B, T_k, H, D) が先で transpose(1, 2) があとです（self.k_proj(memory).view(B, T_k, H, D).transpose(1, 2)）。ヘッドをつなぎ直すときは、transpose(1, 2) のあとに .contiguous() を入れてから view(B, T_q, E) にします。",
        "ko": "원소가 연속으로 놓이지 않은(contiguous가 아닌) 텐서에 view를 호출했습니다. 헤드로 나눌 때는 view(B, T_k, H, D)가 먼저, transpose(1, 2)가 나중입니다(self.k_proj(memory).view(B, T_k, H, D).transpose(1, 2)). 헤드를 다시 이어 붙일 때는 transpose(1, 2) 뒤에 .contiguous()를 넣은 다음 view(B, T_q, E)를 호출합니다.",
    },
    "hint_cross_merge": {
        "ja": "重みは正しく、出力にも正しい値がすべて入っていますが、並び順が違います。ヘッドごとの出力 weights @ v は (B, H, T_q, D) なので、transpose(1, 2) で (B, T_q, H, D) にしてから .contiguous().view(B, T_q, E) でヘッドをつなげます。transpose を省いたり別の軸を入れ替えたりすると、値が別の場所に入ります。",
        "ko": "가중치는 맞습니다. 출력도 들어 있는 값은 맞지만 놓인 순서가 다릅니다. 헤드별 출력 weights @ v는 (B, H, T_q, D)이므로 transpose(1, 2)로 (B, T_q, H, D)로 바꾼 뒤 .contiguous().view(B, T_q, E)로 헤드를 이어 붙입니다. transpose를 빠뜨리거나 엉뚱한 축끼리 바꾸면 값이 다른 자리에 들어갑니다.",
    },
    "hint_cross_expect_tokens": {
        "ja": "正しい入力を渡したのに、forward の最初の course.expect_tokens がエラーを出しました。course.expect_tokens(x, self.embed_dim) と course.expect_tokens(memory, self.embed_dim) は、テンソルが先で埋め込み次元があとです。__init__ で self.embed_dim = embed_dim としているか（n_head や head_dim と取り違えていないか）も確かめてください。",
        "ko": "올바른 입력을 넣었는데 forward 첫머리의 course.expect_tokens에서 오류가 났습니다. course.expect_tokens(x, self.embed_dim)와 course.expect_tokens(memory, self.embed_dim)는 텐서가 먼저이고 임베딩 차원이 나중입니다. __init__에서 self.embed_dim = embed_dim으로 저장했는지(n_head나 head_dim과 뒤바뀌지 않았는지)도 확인하세요.",
    },
    "hint_cross_attributes": {
        "ja": "forward が使う属性が __init__ で設定されていません（別の名前にしていませんか）。__init__ で self.embed_dim, self.n_head = embed_dim, n_head と self.head_dim = course.resolve_head_dim(embed_dim, n_head) を設定してください。",
        "ko": "forward에서 쓰는 속성이 __init__에서 설정되지 않았습니다(다른 이름으로 저장하지 않았는지 확인하세요). __init__에서 self.embed_dim, self.n_head = embed_dim, n_head와 self.head_dim = course.resolve_head_dim(embed_dim, n_head)로 저장하세요.",
    },
    "hint_cross_head_dim": {
        "ja": "CrossAttention({e}, {h}) で、コースのエラー（ValueError）が出ませんでした。E = {e} は H = {h} で割り切れないので、head_dim を決められません。__init__ で self.head_dim = course.resolve_head_dim(embed_dim, n_head) としてください（embed_dim // n_head では、割り切れなくても黙って切り捨てられます）。",
        "ko": "CrossAttention({e}, {h})에서 강좌의 오류(ValueError)가 나지 않았습니다. E = {e}는 H = {h}로 나누어떨어지지 않으므로 head_dim을 정할 수 없습니다. __init__에서 self.head_dim = course.resolve_head_dim(embed_dim, n_head)로 정하세요(embed_dim // n_head는 나누어떨어지지 않아도 아무 말 없이 나머지를 버립니다).",
    },
    "hint_cross_nan": {
        "ja": "マスクの形が (B, 1, 1, T_k) になっているか確かめてください。キーの軸（最後の軸）以外にマスクをかけると、行全体が −∞ になって NaN が出ます。",
        "ko": "마스크 모양이 (B, 1, 1, T_k)인지 확인하세요. 키 축(마지막 축)이 아닌 축에 마스크를 적용하면 행 전체가 −∞가 되어 NaN이 나옵니다.",
    },
    "hint_cross_none_mask": {
        "ja": "key_padding_mask が None のときは、マスクをかけずにそのまま計算します（if key_padding_mask is not None: の中だけでマスクをかけます）。",
        "ko": "key_padding_mask가 None이면 마스크를 적용하지 않고 그대로 계산합니다(if key_padding_mask is not None: 안에서만 마스크를 적용합니다).",
    },
    "hint_cross_no_input_check": {
        "ja": "誤った入力（x の形状 {x}、memory の形状 {memory}）でもエラーになりませんでした。forward の最初で course.expect_tokens(x, self.embed_dim) と course.expect_tokens(memory, self.embed_dim) を呼んでください。",
        "ko": "잘못된 입력(x의 모양 {x}, memory의 모양 {memory})에도 오류가 나지 않았습니다. forward 처음에 course.expect_tokens(x, self.embed_dim)와 course.expect_tokens(memory, self.embed_dim)를 호출하세요.",
    },
}
